import { get, send, seg } from '../api.js';
import { alertBox, badge, card, field, fill, h, table } from '../dom.js';
import { ago, formatNumber } from '../format.js';
import { errorAlert, hashFor, type PageContext } from '../page.js';
import type { ConfigEntry, PartitionDescription, TopicConfigs, TopicDescription } from '../types.js';

const REFRESH_MS = 5000;
const path = (name: string) => `/v1/topics/${seg(name)}`;

/** One topic: partitions with per-replica LEO, HW and lag; configs with their sources; add partitions, delete. */
export async function topicDetailPage(root: HTMLElement, ctx: PageContext, name: string): Promise<void> {
  const summary = h('div');
  const partitions = h('div');
  const configs = h('div');
  const actions = h('div');
  fill(
    root,
    h('h1', { 'data-testid': 'topic-name' }, name, h('a', { class: 'sub', href: hashFor('topics') }, '← all topics')),
    summary,
    actions,
    h('h2', null, 'Partitions'),
    partitions,
    h('h2', null, 'Configuration'),
    configs,
  );
  let current: TopicDescription | null = null;
  const load = async () => {
    try {
      current = await get<TopicDescription>(path(name), ctx.signal);
    } catch (err) {
      if (!ctx.signal.aborted) fill(summary, errorAlert(err, `Topic ${name}`));
      return;
    }
    if (ctx.signal.aborted) return;
    renderSummary(summary, current);
    fill(partitions, partitionTable(name, current.partitions));
  };
  await load();
  if (!current) return;
  fill(actions, actionPanel(ctx, name, current as TopicDescription, load));
  void renderConfigs(configs, ctx, name);
  ctx.every(REFRESH_MS, load);
}

function renderSummary(el: HTMLElement, d: TopicDescription): void {
  const urp = d.partitions.filter((p) => p.isr.length < p.replicas.length).length;
  const offline = d.partitions.filter((p) => p.leader < 0).length;
  const messages = d.partitions.every((p) => p.highWatermark !== null && p.logStartOffset !== null)
    ? d.partitions.reduce((s, p) => s + (p.highWatermark! - p.logStartOffset!), 0)
    : null;
  fill(
    el,
    h(
      'div',
      { class: 'cards' },
      card('Partitions', d.partitions.length, '', 'card-partitions'),
      card('Replication', Math.max(0, ...d.partitions.map((p) => p.replicas.length)), '', 'card-rf'),
      card('Messages', formatNumber(messages), '', 'card-messages'),
      card('Under-replicated', urp, urp > 0 ? 'warn' : 'ok', 'card-urp'),
      card('Offline', offline, offline > 0 ? 'bad' : 'ok', 'card-offline'),
    ),
    d.internal ? alertBox('info', 'An internal topic: gregor manages it.') : null,
  );
}

function replicaList(p: PartitionDescription): HTMLElement {
  return h(
    'ul',
    { class: 'replicas', 'data-testid': `replicas-${p.partition}` },
    p.replicaStates.map((r) =>
      h(
        'li',
        { 'data-broker': r.brokerId, 'data-leo': r.logEndOffset ?? '', 'data-hw': r.highWatermark ?? '', 'data-lag': r.lag ?? '' },
        h('strong', null, `${r.brokerId}`),
        r.brokerId === p.leader ? ' (leader)' : '',
        `: LEO ${r.logEndOffset ?? '?'} · HW ${r.highWatermark ?? '?'} · lag ${r.lag ?? '?'}`,
        r.lastCaughtUpMsAgo !== null && r.brokerId !== p.leader ? h('span', { class: 'muted' }, ` · caught up ${ago(r.lastCaughtUpMsAgo)} ago`) : '',
        ' ',
        !r.online ? badge('offline', 'bad') : r.inSync ? '' : badge('out of sync', 'warn'),
      ),
    ),
    p.replicaStatesSource === 'partial' ? h('li', { class: 'muted' }, 'followers\' LEO known only to the leader') : null,
  );
}

function partitionTable(name: string, rows: PartitionDescription[]): HTMLTableElement {
  return table(
    'partitions',
    [
      { title: 'Partition', cell: (p) => p.partition, num: true },
      { title: 'Leader', cell: (p) => (p.leader < 0 ? badge('none', 'bad') : [String(p.leader), p.leader !== p.replicas[0] ? [' ', badge('not preferred', 'warn')] : null]) },
      { title: 'Epoch', cell: (p) => p.leaderEpoch, num: true },
      { title: 'Replicas', cell: (p) => p.replicas.join(', ') },
      { title: 'ISR', cell: (p) => [p.isr.join(', '), p.isr.length < p.replicas.length ? [' ', badge('under-replicated', 'warn')] : null] },
      { title: 'Log start', cell: (p) => p.logStartOffset ?? '–', num: true },
      { title: 'High watermark', cell: (p) => p.highWatermark ?? '–', num: true },
      { title: 'Log end', cell: (p) => p.logEndOffset ?? '–', num: true },
      { title: 'Replica LEO · HW · lag', cell: (p) => [replicaList(p), p.offsetsError ? h('div', { class: 'muted small' }, p.offsetsError) : null] },
      { title: '', cell: (p) => h('a', { href: hashFor('messages', [], { topic: name, partition: p.partition }) }, 'messages') },
    ],
    rows.slice().sort((a, b) => a.partition - b.partition),
    { rowClass: (p) => (p.leader < 0 ? 'offline' : p.isr.length < p.replicas.length ? 'urp' : null) },
  );
}

function actionPanel(ctx: PageContext, name: string, d: TopicDescription, reload: () => Promise<void>): HTMLElement {
  const out = h('div');
  const count = h('input', { type: 'number', min: d.partitions.length + 1, value: d.partitions.length + 1, 'data-testid': 'partition-count' });
  const add = h('button', { 'data-testid': 'add-partitions' }, 'Add partitions');
  add.addEventListener('click', async () => {
    add.disabled = true;
    try {
      await send('POST', `${path(name)}/partitions`, { count: Number(count.value) });
      fill(out, alertBox('ok', `${name} now has ${count.value} partitions.`));
      await reload();
    } catch (err) {
      fill(out, errorAlert(err, 'Add partitions'));
    } finally {
      add.disabled = false;
    }
  });
  const confirmName = h('input', { placeholder: 'type the topic name', 'data-testid': 'delete-confirm' });
  const del = h('button', { class: 'danger', 'data-testid': 'delete-topic' }, 'Delete topic');
  del.addEventListener('click', async () => {
    if (confirmName.value !== name) {
      fill(out, alertBox('error', 'Type the topic\'s name to confirm its deletion.'));
      return;
    }
    del.disabled = true;
    try {
      await send('DELETE', path(name));
      fill(out, alertBox('ok', `Topic ${name} deleted.`));
      ctx.go(hashFor('topics'));
    } catch (err) {
      fill(out, errorAlert(err, 'Delete topic'));
      del.disabled = false;
    }
  });
  return h(
    'div',
    { class: 'panel' },
    h(
      'div',
      { class: 'row' },
      h('a', { class: 'btn', href: hashFor('messages', [], { topic: name }) }, 'Browse messages'),
      h('span', { class: 'spacer' }),
      field('Partition count', count),
      add,
      h('span', { class: 'spacer' }),
      d.internal ? null : [confirmName, del],
    ),
    out,
  );
}

/** Every topic config with its effective value and source; overrides can be edited or removed, any config set. */
async function renderConfigs(el: HTMLElement, ctx: PageContext, name: string): Promise<void> {
  let onlyOverrides = true;
  let entries: ConfigEntry[] = [];
  const out = h('div');
  const list = h('div');
  const load = async () => {
    try {
      entries = (await get<TopicConfigs>(`${path(name)}/configs?all=true`, ctx.signal)).entries ?? [];
    } catch (err) {
      fill(list, errorAlert(err, 'Configs'));
      return;
    }
    render();
  };
  const alter = async (body: { set?: Record<string, string>; delete?: string[] }, what: string) => {
    try {
      await send('PATCH', `${path(name)}/configs`, body);
      fill(out, alertBox('ok', what));
      await load();
    } catch (err) {
      fill(out, errorAlert(err, 'Alter configs'));
    }
  };
  const render = () => {
    const rows = entries.filter((e) => !onlyOverrides || e.source === 'DYNAMIC_TOPIC_CONFIG');
    fill(
      list,
      table('configs', [
        { title: 'Name', cell: (e) => h('span', { class: 'mono', title: e.documentation ?? '' }, e.name) },
        { title: 'Value', cell: (e) => h('span', { class: 'mono', 'data-testid': `config-value-${e.name}` }, e.sensitive ? '(sensitive)' : (e.value ?? 'null')) },
        { title: 'Source', cell: (e) => h('span', { 'data-testid': `config-source-${e.name}` }, badge(e.source, e.source === 'DYNAMIC_TOPIC_CONFIG' ? 'info' : '')) },
        {
          title: 'Inherited from',
          cell: (e) => e.synonyms.filter((x) => x.source !== 'DYNAMIC_TOPIC_CONFIG').slice(0, 2).map((x) => h('div', { class: 'small muted mono' }, `${x.name}=${x.value ?? 'null'} (${x.source})`)),
        },
        {
          title: '',
          cell: (e) => (e.source === 'DYNAMIC_TOPIC_CONFIG' ? h('button', { 'data-testid': `config-delete-${e.name}`, onclick: () => void alter({ delete: [e.name] }, `${e.name} is back to its default.`) }, 'Remove override') : ''),
        },
      ], rows, { empty: onlyOverrides ? 'No overrides: every config has its default' : 'None' }),
    );
  };
  const key = h('input', { list: 'config-names', placeholder: 'retention.ms', 'data-testid': 'config-name' });
  const value = h('input', { placeholder: 'value', 'data-testid': 'config-new-value' });
  const names = h('datalist', { id: 'config-names' });
  const setButton = h('button', { class: 'primary', 'data-testid': 'config-set' }, 'Set');
  setButton.addEventListener('click', () => void alter({ set: { [key.value.trim()]: value.value } }, `${key.value.trim()} set to ${value.value}.`));
  fill(
    el,
    h(
      'div',
      { class: 'toolbar' },
      h('label', { class: 'inline' }, h('input', { type: 'checkbox', checked: true, 'data-testid': 'only-overrides', onchange: (e) => { onlyOverrides = (e.target as HTMLInputElement).checked; render(); } }), 'overrides only'),
      h('span', { class: 'spacer' }),
      key,
      names,
      value,
      setButton,
    ),
    out,
    list,
  );
  await load();
  fill(names, entries.map((e) => h('option', { value: e.name })));
}
