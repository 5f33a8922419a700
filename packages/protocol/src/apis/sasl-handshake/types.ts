/** SaslHandshake (key 17): field names from Kafka's SaslHandshakeRequest/Response.json. */
export interface SaslHandshakeRequest {
  mechanism: string;
}

export interface SaslHandshakeResponse {
  errorCode: number;
  /** The mechanisms enabled on the listener (always sent, also with an error). */
  mechanisms: string[];
}
