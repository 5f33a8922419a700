/** True when GET http://host:port<path> answers 2xx within `timeoutMs`. */
export async function httpHealthy(host: string, port: number, path = '/healthz', timeoutMs = 2000): Promise<boolean> {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  try {
    const response = await fetch(`http://${hostPart}:${port}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer().catch(() => undefined);
    return response.ok;
  } catch {
    return false;
  }
}
