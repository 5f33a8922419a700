/** SaslAuthenticate (key 36): field names from Kafka's SaslAuthenticateRequest/Response.json. */
export interface SaslAuthenticateRequest {
  authBytes: Buffer;
}

export interface SaslAuthenticateResponse {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Buffer;
  /** v1+: 0 unless connections.max.reauth.ms is set (KIP-368). */
  sessionLifetimeMs: number;
}
