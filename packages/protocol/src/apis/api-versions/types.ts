/** ApiVersions (key 18): field names from Kafka's ApiVersionsRequest/Response.json. */
export interface ApiVersionsRequest {
  /** v3+ (default ""). */
  clientSoftwareName?: string;
  /** v3+ (default ""). */
  clientSoftwareVersion?: string;
}

export interface ApiVersionsResponseKey {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

export interface ApiVersionsResponse {
  errorCode: number;
  apiKeys: ApiVersionsResponseKey[];
  /** v1+ (default 0). */
  throttleTimeMs?: number;
}
