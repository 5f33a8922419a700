// An SVG timeline of one scenario: faults as bands, and per partition its leader over time (from the state
// znodes), every acknowledged write as a tick and every gap of more than a second without one in red; the
// controller and the registered brokers on their own rows.
import type { CheckResult } from './checker.js';
import type { BrokersEvent, ControllerEvent, HistoryEvent, SendEvent, StateEvent } from './history.js';

const COLORS = ['#999999', '#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];
const color = (broker: number | null) => (broker === null || broker < 0 ? '#d62728' : COLORS[broker % COLORS.length]!);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderTimeline(title: string, events: readonly HistoryEvent[], result: CheckResult, partitions: number[]): string {
  const end = Math.max(1, events.length > 0 ? events[events.length - 1]!.time : 1);
  const left = 150;
  const width = 1400;
  const plot = width - left - 20;
  const x = (t: number) => left + (t / end) * plot;
  const rowH = 34;
  const out: string[] = [];
  let y = 50;

  // Faults: one band over the whole height, drawn last-first so labels stay readable.
  const rows = 2 + partitions.length;
  const bandTop = y;
  const bandBottom = y + rows * rowH;
  result.faults.forEach((f, i) => {
    out.push(`<rect x="${x(f.start).toFixed(1)}" y="${bandTop}" width="${Math.max(1, x(f.end) - x(f.start)).toFixed(1)}" height="${bandBottom - bandTop}" fill="#ffdd57" opacity="0.35"><title>${esc(`${f.fault}: ${f.detail}`)}</title></rect>`);
    out.push(`<text x="${x(f.start).toFixed(1)}" y="${bandTop - 6 - (i % 2) * 12}" font-size="11">${esc(`${f.id}. ${f.fault}`)}</text>`);
  });

  // Controller row.
  const controllers = events.filter((e): e is ControllerEvent => e.f === 'controller');
  out.push(`<text x="4" y="${y + 20}" font-size="12">controller</text>`);
  controllers.forEach((c, i) => {
    const to = controllers[i + 1]?.time ?? end;
    out.push(segment(x(c.time), x(to), y + 6, 20, color(c.controllerId), c.controllerId === null ? 'none' : String(c.controllerId)));
  });
  y += rowH;

  // Registered brokers row.
  const brokers = events.filter((e): e is BrokersEvent => e.f === 'brokers');
  out.push(`<text x="4" y="${y + 20}" font-size="12">brokers (ZK)</text>`);
  brokers.forEach((b, i) => {
    const to = brokers[i + 1]?.time ?? end;
    out.push(segment(x(b.time), x(to), y + 6, 20, '#dddddd', b.brokerIds.join(',')));
  });
  y += rowH;

  // One row per partition: leader segments, ack ticks, red ack gaps.
  for (const p of partitions) {
    out.push(`<text x="4" y="${y + 20}" font-size="12">partition ${p}</text>`);
    const states = events.filter((e): e is StateEvent => e.f === 'partition-state' && e.partition === p);
    states.forEach((s, i) => {
      const to = states[i + 1]?.time ?? end;
      out.push(segment(x(s.time), x(to), y + 4, 12, color(s.leader), `L${s.leader} e${s.leaderEpoch} [${s.isr.join(',')}]`, 9));
    });
    const acks = events.filter((e): e is SendEvent => e.f === 'send' && e.type === 'ok' && e.partition === p).map((e) => e.time);
    if (acks.length > 0) out.push(`<path d="${acks.map((t) => `M${x(t).toFixed(1)} ${y + 18}v10`).join('')}" stroke="#333" stroke-width="0.5"/>`);
    for (let i = 1; i < acks.length; i++) {
      if (acks[i]! - acks[i - 1]! > 1000) {
        out.push(`<rect x="${x(acks[i - 1]!).toFixed(1)}" y="${y + 18}" width="${(x(acks[i]!) - x(acks[i - 1]!)).toFixed(1)}" height="10" fill="#d62728" opacity="0.8"><title>${((acks[i]! - acks[i - 1]!) / 1000).toFixed(1)} s without an ack</title></rect>`);
      }
    }
    y += rowH;
  }

  // Time axis.
  const step = end > 120_000 ? 10_000 : end > 40_000 ? 5000 : 1000;
  for (let t = 0; t <= end; t += step) {
    out.push(`<line x1="${x(t).toFixed(1)}" y1="${y}" x2="${x(t).toFixed(1)}" y2="${y + 5}" stroke="#000"/><text x="${x(t).toFixed(1)}" y="${y + 17}" font-size="10" text-anchor="middle">${t / 1000}s</text>`);
  }
  y += 30;
  const status = result.valid ? 'valid' : 'INVALID';
  out.push(`<text x="4" y="${y}" font-size="12">${esc(`${status}: lost ${result.lost.length}, unexplained duplicates ${result.unexplainedDuplicates.length}, non-monotonic reads ${result.nonMonotonicReads.length}, reads not in final log ${result.readsNotInFinal.length}, election violations ${result.elections.violations.length}; longest ack gap ${result.longestAckGapMs} ms`)}</text>`);
  y += 10;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" font-family="sans-serif">` +
    `<rect width="100%" height="100%" fill="#fff"/><text x="4" y="16" font-size="14" font-weight="bold">${esc(title)}</text>` +
    out.join('\n') +
    '</svg>\n'
  );
}

function segment(x1: number, x2: number, y: number, h: number, fill: string, label: string, fontSize = 11): string {
  const w = Math.max(0.5, x2 - x1);
  const text = w > label.length * fontSize * 0.6 ? `<text x="${(x1 + 3).toFixed(1)}" y="${y + h - 3}" font-size="${fontSize}" fill="#fff">${esc(label)}</text>` : '';
  return `<rect x="${x1.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${h}" fill="${fill}" stroke="#fff" stroke-width="0.5"><title>${esc(label)}</title></rect>${text}`;
}
