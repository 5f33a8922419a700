import { ApiError } from './api.js';
import { alertBox, h, type Child } from './dom.js';

/** What a page gets: its route, and timers and requests that end when the user leaves it. */
export interface PageContext {
  /** Path segments after the page's name, decoded: #/topics/orders -> ['orders']. */
  params: string[];
  query: URLSearchParams;
  /** Aborted when the user leaves the page. */
  signal: AbortSignal;
  /** Runs `fn` every `ms` while the page is shown (never two runs at once). */
  every(ms: number, fn: () => Promise<void> | void): void;
  /** Navigates to a hash route such as '#/topics/orders'. */
  go(hash: string): void;
}

export type Page = (root: HTMLElement, ctx: PageContext) => Promise<void> | void;

/** An error as a readable alert: the admin API's code and message. */
export function errorAlert(err: unknown, what?: string): HTMLDivElement {
  const body: Child[] = [];
  if (what) body.push(h('strong', null, `${what}: `));
  if (err instanceof ApiError) body.push(h('code', null, err.code), ' ', err.message);
  else body.push((err as Error)?.message ?? String(err));
  return alertBox('error', ...body);
}

export function hashFor(page: string, params: (string | number)[] = [], query?: Record<string, string | number | undefined>): string {
  const path = [page, ...params.map((p) => encodeURIComponent(String(p)))].join('/');
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') q.set(k, String(v));
  const qs = q.toString();
  return `#/${path}${qs ? `?${qs}` : ''}`;
}

/** A link to a topic's page. */
export function topicLink(name: string): HTMLAnchorElement {
  return h('a', { href: hashFor('topics', [name]) }, name);
}

export function groupLink(group: string, kind?: string): HTMLAnchorElement {
  return h('a', { href: hashFor('groups', [group], kind ? { kind } : {}) }, group);
}
