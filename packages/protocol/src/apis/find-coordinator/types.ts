/** FindCoordinator (key 10): field names from Kafka's FindCoordinatorRequest/Response.json. */
export interface FindCoordinatorRequest {
  /** The group id (keyType 0) or transactional id (keyType 1). */
  key: string;
  /** v1+ (default 0 = group). */
  keyType?: number;
}

export interface FindCoordinatorResponse {
  /** v1+ (default 0). */
  throttleTimeMs?: number;
  errorCode: number;
  /** v1+. */
  errorMessage?: string | null;
  nodeId: number;
  host: string;
  port: number;
}
