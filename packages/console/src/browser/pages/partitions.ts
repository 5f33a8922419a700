import { get, send } from '../api.js';
import { alertBox, badge, card, fill, h, table } from '../dom.js';
import { parseBrokerList } from '../format.js';
import { errorAlert, topicLink, type PageContext } from '../page.js';
import type { Brokers, PartitionsHealth, Progress, TopicSummary } from '../types.js';

const REFRESH_MS = 2000;

/** What this tab asked to move, to show progress after the controller removed /admin/reassign_partitions. */
let lastPlan: { topic: string; partition: number; replicas: number[] }[] = [];

/** Reassignment (with progress) and preferred-leader election. */
export async function partitionsPage(root: HTMLElement, ctx: PageContext): Promise<void> {
  const cards = h('div');
  const reassignStatus = h('div');
  const electionStatus = h('div');
  const editor = h('div');
  const notPreferred = h('div');
  const out = h('div');
  const [topics, brokers] = await Promise.all([get<{ topics: TopicSummary[] }>('/v1/topics', ctx.signal), get<Brokers>('/v1/brokers', ctx.signal)]);
  const topic = h('select', { 'data-testid': 'reassign-topic' }, topics.topics.filter((t) => !t.internal).sort((a, b) => a.name.localeCompare(b.name)).map((t) => h('option', { value: t.name }, t.name)));
  if (ctx.query.get('topic')) topic.value = ctx.query.get('topic')!;

  const electAll = h('button', { 'data-testid': 'elect-all' }, 'Elect preferred leaders');
  electAll.addEventListener('click', async () => {
    fill(out);
    try {
      const res = await send<Progress>('POST', '/v1/partitions/preferred-election', {});
      fill(out, alertBox('ok', `Preferred-leader election started for ${res.partitions.length} partition(s).`));
      await load();
    } catch (err) {
      fill(out, errorAlert(err, 'Preferred-leader election'));
    }
  });

  /** The editor's live cells, refreshed by every load (the inputs keep what the user typed). */
  let editorRows: { partition: number; leader: HTMLElement; isr: HTMLElement; input: HTMLInputElement; current: number[] }[] = [];
  const refreshEditor = (health: PartitionsHealth) => {
    const byPartition = new Map(health.partitions.filter((p) => p.topic === topic.value).map((p) => [p.partition, p]));
    for (const row of editorRows) {
      const p = byPartition.get(row.partition);
      if (!p) continue;
      row.leader.textContent = String(p.leader);
      row.isr.textContent = p.isr.join(', ');
      const replicas = p.replicas.join(',');
      // An untouched input follows the replicas (a finished reassignment); an edited one is kept.
      if (row.input.value === row.current.join(',')) row.input.value = replicas;
      row.current = p.replicas;
      row.input.dataset.current = replicas;
    }
  };

  const renderEditor = async () => {
    const health = await get<PartitionsHealth>('/v1/partitions', ctx.signal);
    const parts = health.partitions.filter((p) => p.topic === topic.value);
    const inputs = parts.map((p) => h('input', { value: p.replicas.join(','), size: 14, 'data-testid': `reassign-replicas-${p.partition}`, 'data-current': p.replicas.join(',') }));
    editorRows = parts.map((p, i) => ({ partition: p.partition, leader: h('span', null, String(p.leader)), isr: h('span', null, p.isr.join(', ')), input: inputs[i]!, current: p.replicas }));
    const start = h('button', { class: 'primary', 'data-testid': 'reassign-start' }, 'Start reassignment');
    start.addEventListener('click', async () => {
      fill(out);
      try {
        const changed = parts
          .map((p, i) => ({ topic: p.topic, partition: p.partition, replicas: parseBrokerList(inputs[i]!.value), current: editorRows[i]?.current ?? p.replicas }))
          .filter((r) => r.replicas.join(',') !== r.current.join(','))
          .map(({ current: _current, ...r }) => r);
        if (changed.length === 0) throw new Error('No partition\'s replicas were changed.');
        await send<Progress>('POST', '/v1/partitions/reassignments', { partitions: changed });
        lastPlan = changed;
        fill(out, alertBox('ok', `Reassignment of ${changed.length} partition(s) started.`));
        await load();
      } catch (err) {
        fill(out, errorAlert(err, 'Reassignment'));
      }
    });
    fill(
      editor,
      table('reassign-editor', [
        { title: 'Partition', cell: (p) => p.partition, num: true },
        { title: 'Leader', cell: (p) => editorRows[parts.indexOf(p)]!.leader, num: true },
        { title: 'ISR', cell: (p) => editorRows[parts.indexOf(p)]!.isr },
        { title: 'Replicas (first = preferred leader)', cell: (p) => inputs[parts.indexOf(p)]! },
      ], parts, { empty: 'Choose a topic' }),
      h('div', { class: 'row' }, start, h('span', { class: 'muted small' }, `live brokers: ${brokers.brokers.map((b) => b.id).sort((a, b) => a - b).join(', ')}`)),
    );
  };
  topic.addEventListener('change', () => void renderEditor());

  fill(
    root,
    h('h1', null, 'Partitions'),
    cards,
    out,
    h('h2', null, 'Reassignment'),
    reassignStatus,
    h('div', { class: 'panel' }, h('div', { class: 'row' }, h('label', null, 'Topic', topic)), editor),
    h('h2', null, 'Preferred-leader election'),
    h('div', { class: 'panel' }, h('div', { class: 'row' }, electAll, h('span', { class: 'muted small' }, 'moves leadership of every partition back to its first replica where that replica is in the ISR')), electionStatus),
    h('h3', null, 'Partitions not led by their preferred replica'),
    notPreferred,
  );

  const load = async () => {
    const [health, reassignment, election] = await Promise.all([
      get<PartitionsHealth>('/v1/partitions', ctx.signal),
      get<Progress>('/v1/partitions/reassignments', ctx.signal),
      get<Progress>('/v1/partitions/preferred-election', ctx.signal),
    ]);
    if (ctx.signal.aborted) return;
    refreshEditor(health);
    fill(
      cards,
      h(
        'div',
        { class: 'cards' },
        card('Partitions', health.total, '', 'card-partitions'),
        card('Not on preferred leader', health.notPreferredLeader, health.notPreferredLeader > 0 ? 'warn' : 'ok', 'card-not-preferred'),
        card('Reassigning', reassignment.inProgress ? reassignment.partitions.length : 0, reassignment.inProgress ? 'warn' : '', 'card-reassigning'),
      ),
    );
    // The progress of the last plan: the znode's entries while it exists, the metadata after.
    const byKey = new Map(health.partitions.map((p) => [`${p.topic}\u0000${p.partition}`, p]));
    const rows = reassignment.inProgress
      ? reassignment.partitions
      : lastPlan.map((r) => {
          const p = byKey.get(`${r.topic}\u0000${r.partition}`);
          const done = p !== undefined && p.replicas.join(',') === r.replicas.join(',') && r.replicas.every((b) => p.isr.includes(b));
          return { topic: r.topic, partition: r.partition, leader: p?.leader ?? -1, replicas: p?.replicas ?? [], isr: p?.isr ?? [], targetReplicas: r.replicas, done };
        });
    const done = rows.filter((r) => r.done).length;
    fill(
      reassignStatus,
      rows.length === 0
        ? h('p', { class: 'muted', 'data-testid': 'reassign-idle' }, 'No reassignment in progress.')
        : [
            h(
              'div',
              { class: 'toolbar', 'data-testid': 'reassign-progress' },
              reassignment.inProgress ? badge('in progress', 'warn') : badge('complete', 'ok'),
              h('div', { class: 'progress', title: `${done}/${rows.length}` }, progressBar(rows.length === 0 ? 0 : done / rows.length)),
              h('span', { 'data-testid': 'reassign-count' }, `${done} of ${rows.length} partition(s) done`),
            ),
            table('reassignments', [
              { title: 'Topic', cell: (r) => topicLink(r.topic) },
              { title: 'Partition', cell: (r) => r.partition, num: true },
              { title: 'Target replicas', cell: (r) => (r.targetReplicas ?? []).join(', ') },
              { title: 'Current replicas', cell: (r) => r.replicas.join(', ') },
              { title: 'ISR', cell: (r) => r.isr.join(', ') },
              { title: 'Leader', cell: (r) => r.leader, num: true },
              { title: 'State', cell: (r) => (r.done ? badge('done', 'ok') : badge('moving', 'warn')) },
            ], rows),
          ],
    );
    fill(
      electionStatus,
      election.inProgress ? h('p', null, badge('election in progress', 'warn'), ` ${election.partitions.length} partition(s)`) : h('p', { class: 'muted', 'data-testid': 'election-idle' }, 'No election in progress.'),
    );
    fill(
      notPreferred,
      table('not-preferred', [
        { title: 'Topic', cell: (p) => topicLink(p.topic) },
        { title: 'Partition', cell: (p) => p.partition, num: true },
        { title: 'Leader', cell: (p) => p.leader, num: true },
        { title: 'Preferred', cell: (p) => p.replicas[0] ?? '–', num: true },
        { title: 'ISR', cell: (p) => p.isr.join(', ') },
      ], health.partitions.filter((p) => !p.offline && !p.preferredLeader), { empty: 'Every partition is led by its preferred replica' }),
    );
  };
  await Promise.all([load(), renderEditor()]);
  ctx.every(REFRESH_MS, load);
}

function progressBar(fraction: number): HTMLDivElement {
  const bar = h('div');
  bar.style.width = `${Math.round(fraction * 100)}%`;
  return bar;
}
