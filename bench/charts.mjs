#!/usr/bin/env node
// Draws the charts that bench scripts put in their JSON results (`charts: [{ id, title, unit, bars: [{ label,
// value, runs? }] }]`) as hand-written SVG: one horizontal bar chart per chart id, each bar the median with
// its runs as dots, and the run's context (date, commit, load average at start and end, host steal, CPU-seconds) under the
// title. Writes docs/bench/<id>.svg and prints the Markdown lines that embed them.
//
//   node bench/charts.mjs [result.json ...]     default: every docs/bench/results/*.json
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { root } from './lib/bench.mjs';

const resultsDir = join(root, 'docs/bench/results');
const outDir = join(root, 'docs/bench');
const files = process.argv.slice(2).length ? process.argv.slice(2) : readdirSync(resultsDir).filter((f) => f.endsWith('.json')).sort().map((f) => join(resultsDir, f));

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** 1234567 -> 1.23M, 45678 -> 45.7k, 12.345 -> 12.3 */
function short(v) {
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1e6) return `${(v / 1e6).toFixed(2)}M`;
  if (a >= 1e4) return `${(v / 1e3).toFixed(1)}k`;
  if (a >= 100) return Math.round(v).toLocaleString('en-US');
  return v.toFixed(a >= 10 ? 1 : 2);
}
/** A round axis maximum at or above `v`: 1, 2 or 5 times a power of ten. */
function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((m) => m >= v);
}

function context(result) {
  const c = result.context;
  const cpu = c.benchCpuSeconds.user + c.benchCpuSeconds.system;
  const parts = [
    `${result.startedAt.slice(0, 16).replace('T', ' ')} UTC`,
    result.commit ? `commit ${result.commit}` : null,
    `load ${c.loadavgStart[0]} → ${c.loadavgEnd[0]} (${result.host.cpus} cores)`,
    c.machineCpuPercent ? `host steal ${c.machineCpuPercent.steal} %` : null,
    `CPU-s: bench ${cpu.toFixed(1)}${c.brokers?.length ? `, brokers ${c.brokerCpuSeconds}` : ''}`,
  ];
  return parts.filter(Boolean).join(' · ');
}

function svg(chart, result) {
  const W = 760;
  const labelW = 230;
  const barW = 400;
  const rowH = 30;
  const top = 62;
  const height = top + chart.bars.length * rowH + 34;
  const all = chart.bars.flatMap((b) => [b.value, ...(b.runs ?? [])]).filter((x) => Number.isFinite(x));
  const max = niceMax(Math.max(...all, 0));
  const x = (v) => labelW + (Math.max(0, v) / max) * barW;
  const palette = ['#3b6ea8', '#c8742c', '#4f9a5b', '#a0506e', '#7a6bb0', '#8a8a3c'];
  const rows = chart.bars.map((b, i) => {
    const y = top + i * rowH;
    const v = Number.isFinite(b.value) ? b.value : 0;
    const dots = (b.runs ?? []).filter(Number.isFinite).map((r) => `<circle cx="${x(r).toFixed(1)}" cy="${y + 11}" r="3" fill="#222" fill-opacity="0.55"/>`).join('');
    return `<text x="${labelW - 8}" y="${y + 15}" text-anchor="end">${esc(b.label)}</text>` +
      `<rect x="${labelW}" y="${y + 2}" width="${(x(v) - labelW).toFixed(1)}" height="18" fill="${palette[i % palette.length]}"/>` + dots +
      `<text x="${(x(Math.max(v, ...(b.runs ?? []).filter(Number.isFinite))) + 7).toFixed(1)}" y="${y + 15}">${esc(short(v))}</text>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const tx = labelW + f * barW;
    return `<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${top + chart.bars.length * rowH}" stroke="#ddd"/>` +
      `<text x="${tx}" y="${top + chart.bars.length * rowH + 14}" text-anchor="middle" fill="#666">${esc(short(f * max))}</text>`;
  });
  const runsNote = chart.bars.some((b) => b.runs?.length) ? ' · bars: median, dots: runs' : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="20" font-size="15" font-weight="bold">${esc(chart.title)}</text>
<text x="12" y="38" fill="#555">${esc(`${result.bench}: ${context(result)}`)}</text>
${ticks.join('\n')}
${rows.join('\n')}
<text x="${labelW + barW / 2}" y="${height - 4}" text-anchor="middle" fill="#444">${esc(chart.unit)}${esc(runsNote)}</text>
</svg>
`;
}

mkdirSync(outDir, { recursive: true });
for (const file of files) {
  const result = JSON.parse(readFileSync(file, 'utf8'));
  for (const chart of result.charts ?? []) {
    if (!chart.bars?.length) continue;
    const out = join(outDir, `${chart.id}.svg`);
    writeFileSync(out, svg(chart, result));
    console.log(`![${chart.title}](${relative(join(root, 'docs'), out)})   <!-- from ${basename(file)} -->`);
  }
}
