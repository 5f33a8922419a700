import { ConfigError, type Logger } from '@gregor/common';
import type { ClientSecurity } from '@gregor/net';

/** Settings shared by every client (Kafka's CommonClientConfigs, camelCased). */
export interface ClientConfig {
  /** `bootstrap.servers`: "host:port,host:port" or a list of "host:port". */
  brokers: string | readonly string[];
  /** `client.id`, sent in every request header. Default "gregor". */
  clientId?: string;
  /** Time allowed to open a connection and negotiate versions. Default 10000. */
  connectTimeoutMs?: number;
  /** `request.timeout.ms`: time a request may wait for its response. Default 30000. */
  requestTimeoutMs?: number;
  /** `metadata.max.age.ms`: cached metadata older than this is refreshed before use. Default 300000. */
  metadataMaxAgeMs?: number;
  /** `retries` for metadata and admin requests. Default 5. */
  retries?: number;
  /** `retry.backoff.ms`: first backoff; it doubles per attempt with jitter. Default 100. */
  retryBackoffMs?: number;
  /** Cap on one backoff. Default 1000. */
  retryBackoffMaxMs?: number;
  /** `security.protocol` and its settings: TLS and/or SASL credentials (clientSecurityFromProperties). Default PLAINTEXT. */
  security?: ClientSecurity;
  logger?: Logger;
}

export interface BrokerAddress {
  host: string;
  port: number;
}

/** Parses "host:port" (IPv6 as "[::1]:9092"). */
export function parseBrokerAddress(text: string): BrokerAddress {
  const s = text.trim();
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(s);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port < 1 || port > 65535) throw new ConfigError(`broker address must be host:port, got "${text}"`);
  return { host: (match[1] ?? match[2])!, port };
}

export function parseBrokerList(brokers: string | readonly string[]): BrokerAddress[] {
  const list = typeof brokers === 'string' ? brokers.split(',') : brokers;
  const parsed = list.map((b) => b.trim()).filter((b) => b.length > 0).map(parseBrokerAddress);
  if (parsed.length === 0) throw new ConfigError('at least one bootstrap broker is required');
  return parsed;
}

export function requireNonNegativeInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 0) throw new ConfigError(`${name} must be a non-negative integer, got ${value}`);
  return v;
}
