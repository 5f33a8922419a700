import { askForToken, getToken } from './auth.js';

/** An admin API error: the HTTP status and the stable GREGOR_ERR_* code (docs/errors.md). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly kafkaErrorCode?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Send the token even on a GET (record reads). */
  auth?: boolean;
  signal?: AbortSignal;
}

/** The admin API's root: the console lives at <root>/ui/. */
function apiUrl(path: string): string {
  return new URL(`..${path}`, document.baseURI).toString();
}

async function once<T>(path: string, opts: RequestOptions): Promise<T> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = getToken();
  if (token && (method !== 'GET' || opts.auth)) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(apiUrl(path), {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    credentials: 'omit',
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const err = (body as { error?: { code?: string; message?: string; kafkaErrorCode?: number } } | null)?.error;
    throw new ApiError(res.status, err?.code ?? `HTTP_${res.status}`, err?.message ?? (text.slice(0, 300) || res.statusText), err?.kafkaErrorCode);
  }
  return body as T;
}

/**
 * One admin API call. A 401 or 403 (no token, or a wrong one) asks for the token and tries once more.
 */
export async function call<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  try {
    return await once<T>(path, opts);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      const why = err.status === 401 ? 'This operation needs the admin token.' : 'The broker refused the token; enter the right one.';
      if (await askForToken(why)) return once<T>(path, opts);
    }
    throw err;
  }
}

export const get = <T>(path: string, signal?: AbortSignal) => call<T>(path, signal ? { signal } : {});
export const send = <T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) => call<T>(path, { method, ...(body !== undefined ? { body } : {}) });

/** Encodes one path segment (topic names and group ids may hold characters URLs reserve). */
export const seg = (s: string | number) => encodeURIComponent(String(s));
