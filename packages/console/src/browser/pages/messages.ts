import { call, get, seg } from '../api.js';
import { alertBox, field, fill, h, table } from '../dom.js';
import { formatTimestamp, fromBase64, renderValue, type ValueFormat } from '../format.js';
import { errorAlert, hashFor, type PageContext } from '../page.js';
import type { FetchedRecord, FetchedRecords, TopicDescription, TopicSummary } from '../types.js';

type Mode = 'newest' | 'offset' | 'timestamp' | 'key';

interface Row extends FetchedRecord {
  partition: number;
}

/** Records by partition and offset, by time, newest first, or by key; keys, values and headers as text, JSON or hex. */
export async function messagesPage(root: HTMLElement, ctx: PageContext): Promise<void> {
  const q = ctx.query;
  const topics = (await get<{ topics: TopicSummary[] }>('/v1/topics', ctx.signal)).topics.sort((a, b) => a.name.localeCompare(b.name));
  let format: ValueFormat = (q.get('format') as ValueFormat | null) ?? 'text';
  let mode: Mode = (q.get('mode') as Mode | null) ?? (q.get('key') ? 'key' : q.get('timestamp') ? 'timestamp' : q.get('offset') ? 'offset' : 'newest');
  let rows: Row[] = [];

  const topic = h('select', { 'data-testid': 'msg-topic' }, topics.map((t) => h('option', { value: t.name }, t.name)));
  topic.value = q.get('topic') ?? topics.find((t) => !t.internal)?.name ?? '';
  const partition = h('select', { 'data-testid': 'msg-partition' });
  const fillPartitions = () => {
    const n = topics.find((t) => t.name === topic.value)?.partitions ?? 0;
    fill(partition, h('option', { value: 'all' }, 'all'), Array.from({ length: n }, (_, i) => h('option', { value: String(i) }, String(i))));
  };
  fillPartitions();
  partition.value = q.get('partition') ?? 'all';
  topic.addEventListener('change', fillPartitions);
  const offset = h('input', { type: 'number', min: 0, placeholder: 'log start', value: q.get('offset') ?? '', 'data-testid': 'msg-offset' });
  const time = h('input', { type: 'datetime-local', step: 1, 'data-testid': 'msg-time' });
  if (q.get('timestamp')) time.value = toLocalInput(Number(q.get('timestamp')));
  const key = h('input', { placeholder: 'key', value: q.get('key') ?? '', 'data-testid': 'msg-key' });
  const contains = h('input', { type: 'checkbox', 'data-testid': 'msg-key-contains' });
  const limit = h('select', { 'data-testid': 'msg-limit' }, [10, 25, 50, 100].map((n) => h('option', { value: String(n) }, String(n))));
  limit.value = q.get('limit') ?? '25';

  const modeInputs = h('div', { class: 'row' });
  const modes: [Mode, string][] = [
    ['newest', 'Newest'],
    ['offset', 'From offset'],
    ['timestamp', 'From time'],
    ['key', 'Search by key'],
  ];
  const modeBar = h('div', { class: 'seg', 'data-testid': 'msg-mode' });
  const renderMode = () => {
    fill(modeBar, modes.map(([m, label]) => h('button', { class: m === mode ? 'on' : null, 'data-mode': m, onclick: () => { mode = m; renderMode(); } }, label)));
    fill(
      modeInputs,
      mode === 'offset' ? field('Offset', offset) : null,
      mode === 'timestamp' ? field('At or after (local time)', time) : null,
      mode === 'key' ? [field('Key', key), h('label', { class: 'inline' }, contains, 'contains')] : null,
    );
  };
  renderMode();

  const formatBar = h('div', { class: 'seg', 'data-testid': 'msg-format' });
  const renderFormat = () =>
    fill(formatBar, (['text', 'json', 'hex'] as ValueFormat[]).map((f) => h('button', { class: f === format ? 'on' : null, 'data-format': f, onclick: () => { format = f; renderFormat(); renderRows(); } }, f === 'json' ? 'JSON' : f)));
  renderFormat();

  const status = h('div', { 'data-testid': 'msg-status' });
  const results = h('div');
  const more = h('div');
  const read = h('button', { class: 'primary', 'data-testid': 'msg-read' }, 'Read');

  const renderRows = () => {
    const show = (b64: string | null) => renderValue(b64 === null ? null : fromBase64(b64), format);
    fill(
      results,
      table('records', [
        { title: 'Partition', cell: (r) => r.partition, num: true },
        { title: 'Offset', cell: (r) => r.offset, num: true },
        { title: 'Timestamp', cell: (r) => h('span', { class: 'mono', title: String(r.timestamp) }, formatTimestamp(r.timestamp)) },
        { title: 'Key', cell: (r) => h('pre', { class: 'value', 'data-testid': 'record-key' }, show(r.key)) },
        { title: 'Value', cell: (r) => h('pre', { class: 'value', 'data-testid': 'record-value' }, show(r.value)) },
        {
          title: 'Headers',
          cell: (r) => h('ul', { class: 'headers', 'data-testid': 'record-headers' }, Object.entries(r.headers).map(([k, v]) => h('li', null, h('strong', null, k), ': ', h('span', { class: 'mono' }, v === null ? 'null' : show(v))))),
        },
      ], rows, { empty: 'No records' }),
    );
  };

  /** One partition's read, in the current mode; `from` continues a previous read. */
  const readPartition = async (p: number, from?: number, high?: number | null): Promise<FetchedRecords> => {
    const params = new URLSearchParams({ limit: limit.value, encoding: 'base64' });
    if (from !== undefined) params.set('offset', String(from));
    else if (mode === 'offset' && offset.value !== '') params.set('offset', offset.value);
    else if (mode === 'timestamp' && time.value) params.set('timestamp', String(new Date(time.value).getTime()));
    else if (mode === 'newest' && high !== undefined && high !== null) params.set('offset', String(Math.max(0, high - Number(limit.value))));
    if (mode === 'key') {
      params.set('key', key.value);
      if (contains.checked) params.set('keyMatch', 'contains');
    }
    return call<FetchedRecords>(`/v1/topics/${seg(topic.value)}/partitions/${p}/records?${params}`, { auth: true, signal: ctx.signal });
  };

  const run = async (continueFrom?: Map<number, number>) => {
    read.disabled = true;
    fill(status);
    fill(more);
    try {
      const all = partition.value === 'all';
      const ids = all ? Array.from({ length: topics.find((t) => t.name === topic.value)?.partitions ?? 0 }, (_, i) => i) : [Number(partition.value)];
      let highs = new Map<number, number | null>();
      if (mode === 'newest' && !continueFrom) {
        const d = await get<TopicDescription>(`/v1/topics/${seg(topic.value)}?peers=false`, ctx.signal);
        highs = new Map(d.partitions.map((p) => [p.partition, p.highWatermark]));
      }
      const answers = await Promise.all(ids.filter((p) => !continueFrom || continueFrom.has(p)).map((p) => readPartition(p, continueFrom?.get(p), highs.get(p))));
      rows = answers.flatMap((a) => a.records.map((r) => ({ ...r, partition: a.partition })));
      rows.sort(mode === 'newest' ? (a, b) => b.timestamp - a.timestamp || b.offset - a.offset : all ? (a, b) => a.timestamp - b.timestamp || a.partition - b.partition : (a, b) => a.offset - b.offset);
      if (mode === 'newest') rows = rows.slice(0, Number(limit.value));
      renderRows();
      const scanned = answers.reduce((s, a) => s + a.scanned, 0);
      const unfinished = new Map(answers.filter((a) => a.nextOffset < a.highWatermark).map((a) => [a.partition, a.nextOffset]));
      fill(
        status,
        alertBox(
          'info',
          `${rows.length} record(s) from ${answers.length} partition(s)`,
          mode === 'key' ? `, ${scanned} scanned` : '',
          '. ',
          answers.map((a) => h('span', { class: 'mono small' }, ` p${a.partition}: ${a.startOffset}→${a.nextOffset} of [${a.logStartOffset}, ${a.highWatermark})`)),
        ),
      );
      if (mode !== 'newest' && unfinished.size > 0) {
        fill(more, h('button', { 'data-testid': 'msg-next', onclick: () => void run(unfinished) }, mode === 'key' ? 'Continue searching' : 'Next page'));
      }
      history.replaceState(null, '', hashFor('messages', [], {
        topic: topic.value,
        partition: partition.value,
        mode,
        offset: mode === 'offset' ? offset.value : undefined,
        timestamp: mode === 'timestamp' && time.value ? new Date(time.value).getTime() : undefined,
        key: mode === 'key' ? key.value : undefined,
        limit: limit.value,
        format,
      }));
    } catch (err) {
      if (!ctx.signal.aborted) fill(status, errorAlert(err, 'Read records'));
    } finally {
      read.disabled = false;
    }
  };
  read.addEventListener('click', () => void run());

  fill(
    root,
    h('h1', null, 'Messages'),
    topics.length === 0 ? alertBox('info', 'No topics yet. ', h('a', { href: hashFor('topics', [], { create: 'true' }) }, 'Create one')) : null,
    h('div', { class: 'panel' }, h('div', { class: 'row' }, field('Topic', topic), field('Partition', partition), field('Records', limit), modeBar), modeInputs, h('div', { class: 'row' }, read, h('span', { class: 'spacer' }), h('span', { class: 'muted small' }, 'show values as'), formatBar)),
    status,
    results,
    more,
  );
  if (q.get('topic')) await run();
}

/** ms since the epoch to a datetime-local input's value (local time, seconds). */
function toLocalInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}
