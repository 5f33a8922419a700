import { get, send, seg } from '../api.js';
import { lineChart } from '../chart.js';
import { alertBox, badge, card, field, fill, h, table } from '../dom.js';
import { compact, formatNumber, formatTimestamp } from '../format.js';
import { errorAlert, groupLink, hashFor, topicLink, type PageContext } from '../page.js';
import { SeriesStore } from '../series.js';
import type { GroupDescription, GroupList, GroupMember, GroupPartition, ResetResult, ResetTarget } from '../types.js';

const REFRESH_MS = 5000;
const LAG_WINDOW_MS = 10 * 60_000;
/** Lag per group and topic, sampled while a group's page is open; kept for the tab's session. */
const lagSeries = new SeriesStore(LAG_WINDOW_MS);

export async function groupsPage(root: HTMLElement, ctx: PageContext): Promise<void> {
  if (ctx.params[0] !== undefined) return groupDetailPage(root, ctx, ctx.params[0], ctx.query.get('kind') ?? undefined);
  const list = h('div');
  fill(root, h('h1', null, 'Consumer groups', h('span', { class: 'sub' }, 'coordinator groups (Kafka clients) and ZooKeeper consumer-connector groups')), list);
  const load = async () => {
    const groups = await get<GroupList>('/v1/groups', ctx.signal);
    const lags = new Map<string, number | null>();
    await Promise.all(
      groups.entries.slice(0, 50).map(async (e) => {
        try {
          const d = await get<GroupDescription>(`/v1/groups/${seg(e.group)}?kind=${e.kind}`, ctx.signal);
          lags.set(`${e.kind}:${e.group}`, totalLag(d.partitions));
        } catch {
          lags.set(`${e.kind}:${e.group}`, null);
        }
      }),
    );
    if (ctx.signal.aborted) return;
    fill(
      list,
      (groups.unavailableCoordinators ?? []).map((u) => alertBox('error', `Broker ${u.broker} did not list its groups: ${u.error}`)),
      table('groups', [
        { title: 'Group', cell: (e) => groupLink(e.group, e.kind) },
        { title: 'Kind', cell: (e) => badge(e.kind === 'coordinator' ? 'coordinator' : 'zookeeper', e.kind === 'coordinator' ? 'info' : '') },
        { title: 'State', cell: (e) => (e.state ? stateBadge(e.state) : '–') },
        { title: 'Protocol type', cell: (e) => e.protocolType || '–' },
        { title: 'Coordinator', cell: (e) => e.coordinator ?? '–', num: true },
        { title: 'Lag', cell: (e) => formatNumber(lags.get(`${e.kind}:${e.group}`) ?? null), num: true },
      ], groups.entries, { empty: 'No consumer groups' }),
    );
  };
  await load();
  ctx.every(REFRESH_MS, load);
}

function totalLag(partitions: GroupPartition[]): number | null {
  return partitions.some((p) => p.lag !== null) ? partitions.reduce((s, p) => s + (p.lag ?? 0), 0) : null;
}

function stateBadge(state: string): HTMLSpanElement {
  return badge(state, state === 'Stable' ? 'ok' : state === 'Empty' ? '' : state === 'Dead' ? 'bad' : 'warn');
}

async function groupDetailPage(root: HTMLElement, ctx: PageContext, group: string, kind: string | undefined): Promise<void> {
  const summary = h('div');
  const members = h('div');
  const partitions = h('div');
  const chart = h('div');
  const reset = h('div');
  fill(
    root,
    h('h1', { 'data-testid': 'group-name' }, group, h('a', { class: 'sub', href: hashFor('groups') }, '← all groups')),
    summary,
    h('h2', null, 'Lag', h('span', { class: 'sub' }, 'per topic, up to the last 10 minutes, sampled every 5 s while this page is open')),
    chart,
    h('h2', null, 'Partitions'),
    partitions,
    h('h2', null, 'Members'),
    members,
    h('h2', null, 'Reset offsets'),
    reset,
  );
  const url = `/v1/groups/${seg(group)}${kind ? `?kind=${kind}` : ''}`;
  let described: GroupDescription | null = null;
  const load = async () => {
    try {
      described = await get<GroupDescription>(url, ctx.signal);
    } catch (err) {
      if (!ctx.signal.aborted) fill(summary, errorAlert(err, `Group ${group}`));
      return;
    }
    if (ctx.signal.aborted) return;
    const d = described;
    const now = Date.now();
    const byTopic = new Map<string, number>();
    for (const p of d.partitions) if (p.lag !== null) byTopic.set(p.topic, (byTopic.get(p.topic) ?? 0) + p.lag);
    for (const [topic, lag] of byTopic) lagSeries.get(`${d.kind}\u0000${group}\u0000${topic}`).add(now, lag);
    const lag = totalLag(d.partitions);
    fill(
      summary,
      h(
        'div',
        { class: 'cards' },
        card('Kind', d.kind, '', 'card-kind'),
        card('State', d.state ?? (d.members.length > 0 ? 'active' : 'inactive'), '', 'card-state'),
        card('Members', d.members.length, '', 'card-members'),
        card('Total lag', formatNumber(lag), lag !== null && lag > 0 ? 'warn' : 'ok', 'card-lag'),
        d.coordinator !== undefined ? card('Coordinator', `broker ${d.coordinator}`, '', 'card-coordinator') : null,
      ),
    );
    const series = [...lagSeries.withPrefix(`${d.kind}\u0000${group}\u0000`)].map(([k, s]) => ({ name: k.split('\u0000')[2]!, points: s.points }));
    fill(chart, lineChart('lag-chart', `Lag of ${group}`, series, { windowMs: LAG_WINDOW_MS, minWindowMs: 60_000, yFormat: compact, width: 1000, height: 220 }));
    fill(
      partitions,
      table('group-partitions', [
        { title: 'Topic', cell: (p) => topicLink(p.topic) },
        { title: 'Partition', cell: (p) => p.partition, num: true },
        { title: 'Owner', cell: (p) => (p.owner ? h('span', { class: 'mono small' }, p.owner) : '–') },
        { title: 'Committed offset', cell: (p) => p.committedOffset ?? '–', num: true },
        { title: 'Log end offset', cell: (p) => p.logEndOffset ?? '–', num: true },
        { title: 'Lag', cell: (p) => (p.lag === null ? '–' : p.lag), num: true },
      ], d.partitions, { empty: 'No committed offsets and no assignment' }),
    );
    fill(members, memberTable(d));
  };
  await load();
  if (!described) return;
  fill(reset, resetPanel(group, described, load));
  ctx.every(REFRESH_MS, load);
}

function memberTable(d: GroupDescription): HTMLTableElement {
  const assignment = (m: GroupMember) => (m.assignment ?? []).map((a) => h('div', { class: 'small' }, `${a.topic}: ${a.partitions.join(', ')}`));
  if (d.kind === 'zookeeper') {
    return table('members', [
      { title: 'Consumer id', cell: (m) => h('span', { class: 'mono' }, m.consumerId ?? '') },
      { title: 'Pattern', cell: (m) => m.pattern ?? '' },
      { title: 'Subscription (streams)', cell: (m) => Object.entries(m.subscription ?? {}).map(([t, n]) => `${t}: ${n}`).join(', ') },
      { title: 'Registered', cell: (m) => (m.timestamp ? formatTimestamp(m.timestamp) : '–') },
      { title: 'Owns', cell: (m) => d.partitions.filter((p) => p.owner?.startsWith(m.consumerId ?? '\u0000')).map((p) => `${p.topic}-${p.partition}`).join(', ') || '–' },
    ], d.members, { empty: 'No consumer registered' });
  }
  return table('members', [
    { title: 'Member id', cell: (m) => h('span', { class: 'mono small' }, m.memberId ?? '') },
    { title: 'Client id', cell: (m) => m.clientId ?? '' },
    { title: 'Host', cell: (m) => m.clientHost ?? '' },
    { title: 'Instance id', cell: (m) => m.groupInstanceId ?? '–' },
    { title: 'Assignment', cell: assignment },
  ], d.members, { empty: 'No members' });
}

type TargetKind = 'earliest' | 'latest' | 'timestamp' | 'offset' | 'shiftBy';

/** The reset form: a dry run shows what would be committed; execute commits exactly the previewed request. */
function resetPanel(group: string, d: GroupDescription, reload: () => Promise<void>): HTMLElement {
  const topics = [...new Set(d.partitions.map((p) => p.topic))].sort();
  const target = h(
    'select',
    { 'data-testid': 'reset-target' },
    h('option', { value: 'earliest' }, 'earliest'),
    h('option', { value: 'latest' }, 'latest'),
    h('option', { value: 'timestamp' }, 'time'),
    h('option', { value: 'offset' }, 'offset'),
    h('option', { value: 'shiftBy' }, 'shift by'),
  );
  const time = h('input', { type: 'datetime-local', step: 1, 'data-testid': 'reset-time' });
  const number = h('input', { type: 'number', value: 0, 'data-testid': 'reset-number' });
  const extra = h('span');
  const showExtra = () => {
    const k = target.value as TargetKind;
    fill(extra, k === 'timestamp' ? field('At or after (local time)', time) : k === 'offset' ? field('Offset', number) : k === 'shiftBy' ? field('Shift by (±)', number) : null);
  };
  target.addEventListener('change', () => {
    showExtra();
    invalidate();
  });
  showExtra();
  const boxes = topics.map((t) => h('input', { type: 'checkbox', checked: true, value: t, 'data-testid': `reset-topic-${t}`, onchange: () => invalidate() }));
  const plan = h('div', { 'data-testid': 'reset-plan' });
  const out = h('div');
  const preview = h('button', { 'data-testid': 'reset-preview' }, 'Preview (dry run)');
  const execute = h('button', { class: 'danger', 'data-testid': 'reset-execute', disabled: true }, 'Execute reset');
  let previewed: string | null = null;
  function invalidate(): void {
    previewed = null;
    execute.disabled = true;
  }
  time.addEventListener('change', invalidate);
  number.addEventListener('input', invalidate);

  const body = (dryRun: boolean) => {
    const k = target.value as TargetKind;
    let to: ResetTarget;
    if (k === 'earliest' || k === 'latest') to = k;
    else if (k === 'timestamp') {
      if (!time.value) throw new Error('Choose a time.');
      to = { timestamp: new Date(time.value).getTime() };
    } else if (k === 'offset') to = { offset: Number(number.value) };
    else to = { shiftBy: Number(number.value) };
    const chosen = boxes.filter((b) => b.checked).map((b) => b.value);
    if (chosen.length === 0) throw new Error('Choose at least one topic.');
    return { to, topics: chosen, kind: d.kind, dryRun };
  };
  const requestKey = () => JSON.stringify({ ...body(false) });

  preview.addEventListener('click', async () => {
    fill(out);
    try {
      const result = await send<ResetResult>('POST', `/v1/groups/${seg(group)}/offsets/reset`, body(true));
      fill(plan, planTable(result, 'Plan (nothing committed yet)'));
      previewed = requestKey();
      execute.disabled = false;
    } catch (err) {
      fill(plan);
      fill(out, errorAlert(err, 'Dry run'));
      invalidate();
    }
  });
  execute.addEventListener('click', async () => {
    fill(out);
    try {
      if (previewed !== requestKey()) throw new Error('Preview the reset first.');
      const result = await send<ResetResult>('POST', `/v1/groups/${seg(group)}/offsets/reset`, body(false));
      fill(plan, planTable(result, 'Committed'));
      fill(out, alertBox('ok', `Offsets of ${group} reset on ${result.offsets.length} partition(s).`));
      invalidate();
      await reload();
    } catch (err) {
      fill(out, errorAlert(err, 'Reset'));
    }
  });
  return h(
    'div',
    { class: 'panel', 'data-testid': 'reset-panel' },
    h('p', { class: 'muted small' }, 'As kafka-consumer-groups --reset-offsets: only an inactive group (no members) can be reset; offsets outside [log start, high watermark] are clamped. Preview first, then execute.'),
    h('div', { class: 'row' }, field('Reset to', target), extra),
    h('div', { class: 'row' }, topics.length === 0 ? h('span', { class: 'muted' }, 'The group has no topics.') : boxes.map((b) => h('label', { class: 'inline' }, b, b.value))),
    h('div', { class: 'row' }, preview, execute),
    out,
    plan,
  );
}

function planTable(r: ResetResult, title: string): HTMLElement {
  return h(
    'div',
    null,
    h('h3', null, title, r.dryRun ? [' ', badge('dry run', 'info')] : [' ', badge('executed', 'ok')]),
    table('reset-offsets', [
      { title: 'Topic', cell: (o) => o.topic },
      { title: 'Partition', cell: (o) => o.partition, num: true },
      { title: 'Current offset', cell: (o) => o.previousOffset ?? '–', num: true },
      { title: 'New offset', cell: (o) => o.offset, num: true },
      { title: 'Change', cell: (o) => (o.previousOffset === null ? '–' : `${o.offset - o.previousOffset >= 0 ? '+' : ''}${o.offset - o.previousOffset}`), num: true },
    ], r.offsets),
  );
}
