import { get } from './api.js';
import { askForToken, getToken, onTokenChange, setToken } from './auth.js';
import { fill, h } from './dom.js';
import { errorAlert, type Page, type PageContext } from './page.js';
import { groupsPage } from './pages/groups.js';
import { messagesPage } from './pages/messages.js';
import { metricsPage } from './pages/metrics.js';
import { overviewPage } from './pages/overview.js';
import { partitionsPage } from './pages/partitions.js';
import { topicsPage } from './pages/topics.js';
import type { Cluster } from './types.js';

const PAGES: { name: string; title: string; page: Page }[] = [
  { name: 'overview', title: 'Overview', page: overviewPage },
  { name: 'topics', title: 'Topics', page: topicsPage },
  { name: 'messages', title: 'Messages', page: messagesPage },
  { name: 'groups', title: 'Consumer groups', page: groupsPage },
  { name: 'partitions', title: 'Partitions', page: partitionsPage },
  { name: 'metrics', title: 'Live charts', page: metricsPage },
];

let leave: (() => void) | null = null;

function route(main: HTMLElement, nav: HTMLElement): void {
  leave?.();
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', qs = ''] = hash.split('?');
  const [name = 'overview', ...rest] = path.split('/').filter((x) => x.length > 0);
  const entry = PAGES.find((p) => p.name === name) ?? PAGES[0]!;
  for (const a of nav.querySelectorAll('a')) a.classList.toggle('active', a.dataset.page === entry.name);
  document.title = `${entry.title} · gregor console`;

  const abort = new AbortController();
  const timers: ReturnType<typeof setTimeout>[] = [];
  leave = () => {
    abort.abort();
    for (const t of timers) clearTimeout(t);
    leave = null;
  };
  const ctx: PageContext = {
    params: rest.map((p) => decodeURIComponent(p)),
    query: new URLSearchParams(qs),
    signal: abort.signal,
    every(ms, fn) {
      // A chain of timeouts rather than setInterval: a slow answer never overlaps the next one.
      const tick = async () => {
        if (abort.signal.aborted) return;
        try {
          await fn();
        } catch {
          // The page shows its own errors; the next tick tries again.
        }
        if (!abort.signal.aborted) timers.push(setTimeout(tick, ms));
      };
      timers.push(setTimeout(tick, ms));
    },
    go(target) {
      location.hash = target;
    },
  };
  const root = h('div', { class: 'page', 'data-page': entry.name });
  fill(main, root);
  void (async () => {
    try {
      await entry.page(root, ctx);
    } catch (err) {
      if (!abort.signal.aborted) root.append(errorAlert(err));
    }
  })();
}

function authArea(): HTMLElement {
  const area = h('div', { class: 'auth', 'data-testid': 'auth' });
  const render = () => {
    const token = getToken();
    fill(
      area,
      h('span', { 'data-testid': 'auth-state' }, token ? 'token set' : 'no token'),
      token
        ? h('button', { onclick: () => setToken(null), 'data-testid': 'token-forget' }, 'Forget token')
        : h('button', { onclick: () => void askForToken(), 'data-testid': 'token-set' }, 'Set token'),
    );
  };
  onTokenChange(render);
  render();
  return area;
}

function start(): void {
  const app = document.getElementById('app')!;
  const clusterId = h('small', { 'data-testid': 'cluster-id' });
  const nav = h(
    'nav',
    null,
    PAGES.map((p) => h('a', { href: `#/${p.name}`, 'data-page': p.name }, p.title)),
  );
  const main = h('main');
  fill(app, h('header', { class: 'top' }, h('div', { class: 'brand' }, 'gregor', clusterId), nav, authArea()), main);
  get<Cluster>('/v1/cluster')
    .then((c) => fill(clusterId, c.clusterId ? `cluster ${c.clusterId}` : ''))
    .catch(() => {});
  window.addEventListener('hashchange', () => route(main, nav));
  route(main, nav);
}

start();
