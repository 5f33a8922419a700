import { get, send, seg } from '../api.js';
import { alertBox, badge, field, fill, h, table } from '../dom.js';
import { formatBytes, formatNumber, formatRate, parseConfigLines } from '../format.js';
import { errorAlert, hashFor, topicLink, type PageContext } from '../page.js';
import { RateTracker } from '../series.js';
import type { TopicDescription, TopicSummary } from '../types.js';
import { topicDetailPage } from './topic-detail.js';

const REFRESH_MS = 5000;
/** Message rates from the sum of each topic's high watermarks, kept across visits of the page. */
const rates = new Map<string, RateTracker>();
const lastRate = new Map<string, number | null>();

export async function topicsPage(root: HTMLElement, ctx: PageContext): Promise<void> {
  if (ctx.params[0] !== undefined) return topicDetailPage(root, ctx, ctx.params[0]);
  let showInternal = ctx.query.get('internal') === 'true';
  const list = h('div');
  const status = h('div');
  fill(
    root,
    h('h1', null, 'Topics'),
    createForm(ctx),
    h(
      'div',
      { class: 'toolbar' },
      h('label', { class: 'inline' }, h('input', { type: 'checkbox', checked: showInternal, 'data-testid': 'show-internal', onchange: (e) => { showInternal = (e.target as HTMLInputElement).checked; void load(); } }), 'internal topics'),
      h('span', { class: 'spacer' }),
      h('span', { class: 'muted small' }, 'rates from high watermarks, sampled every 5 s'),
    ),
    status,
    list,
  );
  const load = async () => {
    let topics: TopicSummary[];
    try {
      topics = (await get<{ topics: TopicSummary[] }>('/v1/topics?stats=true', ctx.signal)).topics;
    } catch (err) {
      if (!ctx.signal.aborted) fill(status, errorAlert(err, 'Topics'));
      return;
    }
    if (ctx.signal.aborted) return;
    fill(status);
    const now = Date.now();
    for (const t of topics) {
      if (t.highWatermarkSum === null || t.highWatermarkSum === undefined) continue;
      const tracker = rates.get(t.name) ?? new RateTracker();
      rates.set(t.name, tracker);
      const r = tracker.sample(now, t.highWatermarkSum);
      if (r !== null || !lastRate.has(t.name)) lastRate.set(t.name, r);
    }
    const shown = topics.filter((t) => showInternal || !t.internal).sort((a, b) => a.name.localeCompare(b.name));
    fill(
      list,
      table('topics', [
        { title: 'Topic', cell: (t) => [topicLink(t.name), t.internal ? [' ', badge('internal')] : null] },
        { title: 'Partitions', cell: (t) => t.partitions, num: true },
        { title: 'Replication', cell: (t) => t.replicationFactor, num: true },
        { title: 'Messages', cell: (t) => formatNumber(t.messages), num: true },
        { title: 'Size', cell: (t) => formatBytes(t.sizeBytes), num: true },
        { title: 'Messages/s', cell: (t) => formatRate(lastRate.get(t.name) ?? null, ''), num: true },
      ], shown, { empty: 'No topics yet' }),
    );
  };
  await load();
  ctx.every(REFRESH_MS, load);
}

function createForm(ctx: PageContext): HTMLElement {
  const name = h('input', { name: 'name', placeholder: 'orders', 'data-testid': 'create-name', required: true });
  const partitions = h('input', { type: 'number', name: 'partitions', min: 1, value: 3, 'data-testid': 'create-partitions' });
  const rf = h('input', { type: 'number', name: 'replicationFactor', min: 1, value: 1, 'data-testid': 'create-rf' });
  const configs = h('textarea', { name: 'configs', rows: 2, placeholder: 'cleanup.policy=compact\nretention.ms=86400000', 'data-testid': 'create-configs' });
  const out = h('div');
  const button = h('button', { class: 'primary', 'data-testid': 'create-submit' }, 'Create topic');
  button.addEventListener('click', async () => {
    button.disabled = true;
    fill(out);
    try {
      const body = { name: name.value.trim(), partitions: Number(partitions.value), replicationFactor: Number(rf.value), configs: parseConfigLines(configs.value) };
      const created = await send<TopicDescription | { name: string; status: string; message: string }>('POST', '/v1/topics', body);
      fill(out, alertBox('ok', `Topic ${created.name} created.`));
      ctx.go(hashFor('topics', [created.name]));
    } catch (err) {
      fill(out, errorAlert(err, 'Create topic'));
    } finally {
      button.disabled = false;
    }
  });
  return h(
    'details',
    { class: 'panel', 'data-testid': 'create-topic', open: ctx.query.get('create') === 'true' },
    h('summary', null, 'Create a topic'),
    h('div', { class: 'row' }, field('Name', name), field('Partitions', partitions), field('Replication factor', rf)),
    h('div', { class: 'row' }, h('label', { class: 'grow' }, 'Config overrides (key=value per line)', configs)),
    h('div', { class: 'row' }, button),
    out,
  );
}

export const topicPath = (name: string) => `/v1/topics/${seg(name)}`;
