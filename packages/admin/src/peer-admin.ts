import type { AdminContext } from './admin-context.js';

const PEER_TIMEOUT_MS = 3000;

/** Another broker's admin server, from the gregor_admin_url of its /brokers/ids registration; null when it runs none. */
export async function peerAdminUrl({ server }: AdminContext, brokerId: number): Promise<string | null> {
  return (await server.zk.getBroker(brokerId))?.adminUrl ?? null;
}

/**
 * A GET to another broker's admin API, for what only that broker knows (its own metrics, the follower
 * LEOs a leader tracks). The caller's Authorization header is passed on, so a peer that protects
 * reads sees the same credentials.
 */
export async function getFromPeer<T>(baseUrl: string, path: string, authorization: string | undefined): Promise<T> {
  const res = await fetch(new URL(path, baseUrl), {
    headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
    signal: AbortSignal.timeout(PEER_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`${baseUrl}${path} answered ${res.status}`);
  return (await res.json()) as T;
}
