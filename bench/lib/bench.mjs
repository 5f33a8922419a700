// The shared part of every script under bench/: a scratch folder, ZooKeeper and broker processes from
// @gregor/launcher (free ports, readiness waits, cleanup), kcat runs, small statistics, and one
// machine-readable result per run with its context (load average at start and end, this process's CPU,
// the brokers' and ZooKeeper's CPU-seconds and peak RSS from /proc).
//
// A script does `const b = await startBench('name', { params })`, measures, then `await b.finish(results,
// { charts })`. finish prints `JSON: {...}` as the last line and, with `--json <file>` (or BENCH_JSON=<file>),
// writes the same object to that file; bench/charts.mjs draws docs/bench/*.svg from such files.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrokerProcess, ZooKeeperEnsemble, ZooKeeperNode, freePorts, repoGregorCommand } from '@gregor/launcher';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// --- numbers ---------------------------------------------------------------------------------------
/** Seconds on a monotonic clock. */
export const nowS = () => Number(process.hrtime.bigint()) / 1e9;
/** Milliseconds on a monotonic clock. */
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** The upper median (the middle run of an odd count), as the tables in docs/benchmarks.md use. */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The p-th percentile by rank (p in 0..100). */
export const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
/**
 * Paired runs: b[i] / a[i] for runs measured back to back, so that the machine's drift between pairs cancels out of
 * each ratio. Returns the ratios, their median, a 95 % confidence interval of that median (percentile bootstrap,
 * 2,000 resamples, a fixed seed so the same runs always give the same interval) and how many ratios are at least 1.
 */
export function pairedRatios(a, b) {
  const ratios = b.map((x, i) => x / a[i]);
  let seed = 0x9e3779b9; // mulberry32
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const medians = Array.from({ length: 2000 }, () => median(ratios.map(() => ratios[Math.floor(random() * ratios.length)])));
  return { ratios, median: median(ratios), ci95: [pct(medians, 2.5), pct(medians, 97.5)], atLeastOne: ratios.filter((r) => r >= 1).length };
}
/** `0.98 (95 % CI 0.91-1.04; >= 1 in 9 of 20 pairs)`. */
export const fmtPaired = (p) => `${p.median.toFixed(2)} (95 % CI ${p.ci95[0].toFixed(2)}-${p.ci95[1].toFixed(2)}; >= 1 in ${p.atLeastOne} of ${p.ratios.length} pairs)`;
export const fmt = (n) => Math.round(n).toLocaleString('en-US');
/** `1,013,000 rec/s [1051k, 1013k, 959k]`: the median and every run. */
export const fmtRuns = (xs, unit = 'rec/s') => `${fmt(median(xs))} ${unit} [${xs.map((x) => `${Math.round(x / 1000)}k`).join(', ')}]`;
/** `--full` (or FULL=1): the sizes the figures in docs/benchmarks.md were measured at, instead of the small defaults. */
export const FULL = process.argv.includes('--full') || process.env.FULL === '1';
/** A number from the environment; else `full` under --full (when given), else the small default. */
export const envNum = (name, dflt, full = dflt) => Number(process.env[name] ?? (FULL ? full : dflt));
export const loadAvg = () => loadavg().map((l) => Math.round(l * 100) / 100);
/** PROFILE=1: where brokers write CPU profiles (PROFILE_DIR, default ./profiles; outside the scratch folder, so they stay). */
export const PROFILE_DIR = process.env.PROFILE === '1' ? resolve(process.env.PROFILE_DIR ?? 'profiles') : null;
/** Node options for a broker under PROFILE=1: a CPU profile named `<name>.cpuprofile`, written when it exits cleanly (SIGTERM, not kill -9). */
export function cpuProfileArgs(name) {
  if (!PROFILE_DIR) return [];
  mkdirSync(PROFILE_DIR, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`];
}

// --- /proc -----------------------------------------------------------------------------------------
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/**
 * A process's use so far from /proc/<pid>/stat: user and system CPU-seconds (utime, stime: fields 14 and 15) and
 * minor page faults (minflt: field 10); null once it is gone.
 */
export function procUsage(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { userSeconds: Number(f[11]) / CLK_TCK, systemSeconds: Number(f[12]) / CLK_TCK, minorFaults: Number(f[7]) };
  } catch {
    return null;
  }
}

/** CPU-seconds (user + system) of a process so far; null once it is gone. */
export function procCpuSeconds(pid) {
  const u = procUsage(pid);
  return u && u.userSeconds + u.systemSeconds;
}

/** The machine's CPU time so far, from the first line of /proc/stat (ticks): all, idle (with iowait) and steal. */
export function machineCpuTicks() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
  return { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, steal };
}

/**
 * How busy the machine's cores were between two machineCpuTicks() snapshots (%), and how much of their time the
 * hypervisor gave to other guests (steal: a VM's cores waiting for the host's, which no process here can use).
 */
export function machineCpuPercent(from, to = machineCpuTicks()) {
  const total = to.total - from.total || 1;
  const steal = to.steal - from.steal;
  const round = (x) => Math.round(x * 10) / 10;
  return { busy: round((100 * (total - (to.idle - from.idle) - steal)) / total), steal: round((100 * steal) / total) };
}

/** CPU-seconds of this process's children that have ended and been waited for (kcat runs, stopped brokers). */
export function childrenCpuSeconds() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / CLK_TCK;
}

/** Resident set size and its peak (VmRSS, VmHWM) in MiB; null once the process is gone. */
export function procMemoryMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: Math.round(kb('VmRSS') / 102.4) / 10, peak: Math.round(kb('VmHWM') / 102.4) / 10 };
  } catch {
    return null;
  }
}

/** Follows processes by pid (several pids per name across restarts), keeping their last CPU and memory figures. */
class ProcessWatch {
  #seen = new Map(); // pid -> { name, kind, cpu, peak }
  #timer = setInterval(() => this.sample(), 1000).unref();

  add(name, kind, pid) {
    if (pid !== undefined && !this.#seen.has(pid)) this.#seen.set(pid, { name, kind, cpu: 0, peak: 0 });
    this.sample();
  }

  sample() {
    for (const [pid, p] of this.#seen) {
      const cpu = procCpuSeconds(pid);
      const mem = procMemoryMiB(pid);
      if (cpu !== null) p.cpu = cpu;
      if (mem !== null) p.peak = Math.max(p.peak, mem.peak);
    }
  }

  /** Per name: CPU-seconds summed over its pids, and the highest peak RSS. */
  summary(kind) {
    this.sample();
    const byName = new Map();
    for (const [pid, p] of this.#seen) {
      if (p.kind !== kind) continue;
      const s = byName.get(p.name) ?? { name: p.name, pids: [], cpuSeconds: 0, peakRssMiB: 0 };
      s.pids.push(pid);
      s.cpuSeconds = Math.round((s.cpuSeconds + p.cpu) * 100) / 100;
      s.peakRssMiB = Math.max(s.peakRssMiB, p.peak);
      byName.set(p.name, s);
    }
    return [...byName.values()];
  }

  stop() {
    clearInterval(this.#timer);
  }
}

// --- child processes -------------------------------------------------------------------------------
/**
 * Runs a command to its end; resolves with its stdout (when `stdout: 'pipe'`), rejects with its stderr tail.
 * `signal` (an AbortSignal) kills it and rejects.
 */
export function run(cmd, args, { input, stdout = 'ignore', env, signal } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: [input === undefined ? 'ignore' : 'pipe', stdout, 'pipe'], env: env ?? process.env, signal });
    let err = '';
    const out = [];
    child.stderr.on('data', (d) => (err += d));
    if (stdout === 'pipe') child.stdout.on('data', (d) => out.push(d));
    if (input !== undefined) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(Buffer.concat(out)) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-500)}`))));
  });
}

/** kcat producing every line of `file` (one record each) with the bench's usual batching. */
export const kcatProduceArgs = (brokers, topic, file, ...extra) => [
  '-P', '-b', brokers, '-t', topic, '-l',
  '-X', 'linger.ms=5', '-X', 'batch.num.messages=10000', '-X', 'queue.buffering.max.messages=1000000',
  ...extra.flatMap((x) => ['-X', x]), file,
];

/** A file of `n` lines of `size - 1` bytes plus the newline: kcat's input for n records of `size - 1` bytes. */
export async function linesFile(path, n, size = 101) {
  const ws = createWriteStream(path);
  const chunk = ('x'.repeat(size - 1) + '\n').repeat(10_000);
  for (let i = 0; i < Math.floor(n / 10_000); i++) if (!ws.write(chunk)) await new Promise((r) => ws.once('drain', r));
  ws.write(('x'.repeat(size - 1) + '\n').repeat(n % 10_000));
  await new Promise((r) => ws.end(r));
  return path;
}

// --- topics --------------------------------------------------------------------------------------
/**
 * Creates a topic through `admin` (a gregor Admin), retrying while the broker is still starting (no controller
 * yet), then waits until every partition has a leader. Options: replicationFactor (1), configs.
 */
export async function createTopicRetrying(admin, name, partitions, { replicationFactor = 1, configs } = {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      const [r] = await admin.createTopics([{ name, numPartitions: partitions, replicationFactor, ...(configs ? { configs } : {}) }]);
      // 36 TOPIC_ALREADY_EXISTS after a retry: an earlier attempt created it.
      if (r.errorCode === 0 || (attempt > 0 && r.errorCode === 36)) break;
      throw new Error(`create ${name}: ${r.errorMessage ?? `error ${r.errorCode}`}`);
    } catch (error) {
      if (attempt > 50) throw error;
      await sleep(200);
    }
  }
  await admin.waitForLeaders([name], 30_000);
}

// --- the run ---------------------------------------------------------------------------------------
/** The checkout's commit, `-dirty` when tracked files differ from it. */
function gitCommit() {
  try {
    const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '-dirty' : ''}`;
  } catch {
    return null;
  }
}

function jsonTarget(argv) {
  const i = argv.indexOf('--json');
  if (i >= 0) {
    if (!argv[i + 1]) throw new Error('--json needs a file name');
    return resolve(argv[i + 1]);
  }
  return process.env.BENCH_JSON ? resolve(process.env.BENCH_JSON) : null;
}

class Bench {
  #started = new Date();
  #cpu0 = process.cpuUsage();
  #load0 = loadAvg();
  #children0 = childrenCpuSeconds();
  #machine0 = machineCpuTicks();
  #watch = new ProcessWatch();
  #zookeepers = [];
  #brokers = [];
  #cleanups = [];
  #jsonFile;
  #finished = false;

  constructor(name, params) {
    this.name = name;
    this.params = params;
    this.#jsonFile = jsonTarget(process.argv.slice(2));
    this.work = mkdtempSync(join(process.env.SCRATCH ?? tmpdir(), `gregor-bench-${name}-`));
    console.log(`${name}: load average at start ${this.#load0.join(' ')}`);
  }

  /** Also run at the end (clients to close, connections...), before the brokers stop; last added runs first. */
  onCleanup(fn) {
    this.#cleanups.unshift(fn);
  }

  /** A standalone ZooKeeper node on a free port (tickTime 500 so 2–10 s sessions are allowed). */
  async zookeeper() {
    const [port] = await freePorts(1);
    const node = new ZooKeeperNode({ id: 1, dir: join(this.work, `zk-${this.#zookeepers.length}`), clientPort: port, tickTime: 500, stopGraceMs: 3000 });
    this.#zookeepers.push(node);
    await node.start();
    this.#watch.add('zookeeper-1', 'zookeeper', node.pid);
    return node;
  }

  /** A ZooKeeper ensemble of `size` nodes on free ports. */
  async ensemble(size) {
    const ensemble = await ZooKeeperEnsemble.onFreePorts({ dir: join(this.work, 'zk-ensemble'), size, tickTime: 500, stopGraceMs: 3000 });
    this.#zookeepers.push(ensemble);
    await ensemble.start();
    for (const n of ensemble.nodes) this.#watch.add(`zookeeper-${n.config.id}`, 'zookeeper', n.pid);
    return ensemble;
  }

  /**
   * A broker process (not started): `props` are server.properties on top of the id, a PLAINTEXT listener on
   * `port` (default: a free one), log.dirs and zookeeper.connect; `http.port` defaults to -1. `nodeArgs` go
   * before the CLI (e.g. --cpu-prof); by default BROKER_NODE_ARGS from the environment, split on spaces
   * (`BROKER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'` profiles every broker of any bench). `gregorRoot` runs
   * the CLI of another built checkout (before/after in one sitting). Start it with startBroker (or b.start(broker)
   * after a kill).
   */
  async broker({ id = 1, zookeeperConnect, props = {}, port, nodeArgs = (process.env.BROKER_NODE_ARGS ?? '').split(' ').filter(Boolean), gregorRoot }) {
    port ??= (await freePorts(1))[0];
    const dir = join(this.work, `broker-${id}`);
    const [node, repoCli] = repoGregorCommand();
    const cli = gregorRoot ? join(resolve(gregorRoot), 'packages/cli/dist/main.js') : repoCli;
    const properties = new Map(Object.entries({
      'broker.id': String(id),
      listeners: `PLAINTEXT://127.0.0.1:${port}`,
      'log.dirs': join(dir, 'data'),
      'zookeeper.connect': zookeeperConnect,
      'http.port': '-1',
      'zookeeper.session.timeout.ms': '6000',
      ...props,
    }));
    const httpPort = Number(properties.get('http.port'));
    const broker = new BrokerProcess({ id, dir, host: '127.0.0.1', port, httpPort, properties, gregorCommand: [node, ...nodeArgs, cli], stopGraceMs: 15_000 });
    this.#brokers.push(broker);
    return broker;
  }

  /** (Re)starts a broker and waits until it serves (HTTP /healthz with the admin server, else its port). */
  async start(broker) {
    await broker.start();
    this.#watch.add(broker.name, 'broker', broker.pid);
    await broker.waitReady();
    return broker;
  }

  /** broker() then start(): one started broker. */
  async startBroker(options) {
    return this.start(await this.broker(options));
  }

  /** One ZooKeeper node and one started broker: the usual single-broker setup. */
  async singleBroker(props = {}, options = {}) {
    const zk = await this.zookeeper();
    const broker = await this.startBroker({ zookeeperConnect: zk.connectString, props, ...options });
    return { zk, broker, bootstrap: broker.bootstrapServer };
  }

  /**
   * A ZooKeeper ensemble of `zookeepers` nodes and `brokers` started broker processes with ids 1..n; `props`
   * go to every broker, then EXTRA_PROPS from the environment (k=v,k=v); `nodeArgs(id)` go before each one's CLI;
   * `gregorRoot` (default GREGOR_ROOT from the environment) runs the brokers of another built checkout.
   * Returns the brokers by id.
   */
  async cluster({ brokers: count, zookeepers = 3, props = {}, nodeArgs = () => (process.env.BROKER_NODE_ARGS ?? '').split(' ').filter(Boolean), gregorRoot = process.env.GREGOR_ROOT }) {
    const ensemble = await this.ensemble(zookeepers);
    const extra = Object.fromEntries((process.env.EXTRA_PROPS ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    const brokers = new Map();
    for (let id = 1; id <= count; id++) brokers.set(id, await this.broker({ id, zookeeperConnect: ensemble.connectString, props: { ...props, ...extra }, nodeArgs: nodeArgs(id), gregorRoot }));
    await Promise.all([...brokers.values()].map((br) => this.start(br)));
    return { ensemble, brokers, bootstrap: [...brokers.values()].map((br) => br.bootstrapServer).join(',') };
  }

  /**
   * A helper server: `node <args>` (cwd the repo root, `env` on top of this process's), stopped at cleanup. Resolves
   * with the child once it has printed its first line (by convention `ready`, when it listens); rejects if it exits first.
   */
  async nodeServer(args, env = {}) {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], cwd: root, env: { ...process.env, ...env } });
    this.onCleanup(() => child.kill('SIGKILL'));
    await new Promise((resolvePromise, reject) => {
      child.stdout.once('data', resolvePromise);
      child.once('exit', (code) => reject(new Error(`node ${args.join(' ').slice(0, 80)} exited ${code} before it was ready`)));
    });
    return child;
  }

  /** Samples the watched processes' CPU now (call right before a kill -9 to keep its last figure). */
  sample() {
    this.#watch.sample();
  }

  /** CPU-seconds of the brokers so far (all their pids), for per-phase figures. */
  brokerCpuSeconds() {
    return this.#watch.summary('broker').reduce((s, b) => s + b.cpuSeconds, 0);
  }

  /** Runs the cleanups, stops the brokers (SIGTERM) and ZooKeeper; the scratch folder stays until finish. */
  async close() {
    // Bounded: a cleanup that hangs (a server waiting on a connection) must not keep the brokers running.
    for (const fn of this.#cleanups) await Promise.race([Promise.resolve().then(fn).catch(() => {}), sleep(5000)]);
    this.#cleanups = [];
    this.#watch.sample();
    await Promise.allSettled(this.#brokers.map((b) => b.stop()));
    this.#watch.sample();
    await Promise.allSettled(this.#zookeepers.map((z) => z.kill()));
  }

  /** Removes the scratch folder unless KEEP=1. */
  removeWork() {
    if (process.env.KEEP === '1') console.log(`scratch kept in ${this.work}`);
    else rmSync(this.work, { recursive: true, force: true });
  }

  /**
   * Ends the run: closes everything, then prints `JSON: {...}` (and writes --json <file>) with the results
   * and their context. `charts` (optional) are what bench/charts.mjs draws: [{ id, title, unit, bars: [{ label,
   * value, runs? }], note? }].
   */
  async finish(results, { charts = [] } = {}) {
    if (this.#finished) return;
    this.#finished = true;
    await this.close();
    this.removeWork();
    this.#watch.stop();
    const cpu = process.cpuUsage(this.#cpu0);
    const brokers = this.#watch.summary('broker');
    const zookeepers = this.#watch.summary('zookeeper');
    const finishedAt = new Date();
    const out = {
      bench: this.name,
      startedAt: this.#started.toISOString(),
      finishedAt: finishedAt.toISOString(),
      wallSeconds: Math.round((finishedAt - this.#started) / 100) / 10,
      commit: gitCommit(),
      host: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      params: this.params,
      context: {
        loadavgStart: this.#load0,
        loadavgEnd: loadAvg(),
        machineCpuPercent: machineCpuPercent(this.#machine0),
        benchCpuSeconds: { user: Math.round(cpu.user / 1e4) / 100, system: Math.round(cpu.system / 1e4) / 100 },
        // Every child that ended: kcat runs and the brokers and ZooKeeper nodes (those also listed below).
        childrenCpuSeconds: Math.round((childrenCpuSeconds() - this.#children0) * 100) / 100,
        brokerCpuSeconds: Math.round(brokers.reduce((s, b) => s + b.cpuSeconds, 0) * 100) / 100,
        brokers,
        zookeeperCpuSeconds: Math.round(zookeepers.reduce((s, z) => s + z.cpuSeconds, 0) * 100) / 100,
      },
      results,
      charts,
    };
    const c = out.context;
    console.log(`load average at start ${c.loadavgStart.join(' ')}, at end ${c.loadavgEnd.join(' ')}; machine busy ${c.machineCpuPercent.busy} %, steal ${c.machineCpuPercent.steal} %; CPU-seconds: bench ${(c.benchCpuSeconds.user + c.benchCpuSeconds.system).toFixed(2)}` +
      (brokers.length ? `, brokers ${c.brokerCpuSeconds} (${brokers.map((b) => `${b.name} ${b.cpuSeconds}, peak RSS ${b.peakRssMiB} MiB`).join('; ')})` : '') +
      (zookeepers.length ? `, ZooKeeper ${c.zookeeperCpuSeconds}` : ''));
    if (this.#jsonFile) {
      mkdirSync(dirname(this.#jsonFile), { recursive: true });
      writeFileSync(this.#jsonFile, `${JSON.stringify(out, null, 2)}\n`);
      console.log(`result written to ${this.#jsonFile}`);
    }
    console.log(`JSON: ${JSON.stringify(out)}`);
    return out;
  }
}

/**
 * Starts a run: reads the sizes named in `env` from the environment (b.params), records load average and CPU, makes the scratch folder, and on an error or a signal
 * stops what it started (brokers, ZooKeeper) before exiting non-zero.
 */
export async function startBench(name, { env = {}, params = {} } = {}) {
  // env: { NAME: default } or { NAME: [default, --full size] }, read from the environment; b.params has them all.
  const sizes = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, Array.isArray(v) ? envNum(k, v[0], v[1]) : envNum(k, v)]));
  const b = new Bench(name, { ...sizes, ...params });
  const bail = async (code, why) => {
    if (why) console.error(why);
    await b.close().catch(() => {});
    b.removeWork();
    process.exit(code);
  };
  process.once('SIGINT', () => void bail(130));
  process.once('SIGTERM', () => void bail(143));
  process.once('unhandledRejection', (e) => void bail(1, e));
  process.once('uncaughtException', (e) => void bail(1, e));
  return b;
}
