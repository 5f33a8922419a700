import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '@gregor/common';
import { defaultClusterSpec, LocalCluster, readClusterFile, type ClusterSpec, type ClusterStatus } from '@gregor/launcher';
import { parseArgs } from 'node:util';
import { intOption, parsed } from '../args.js';
import { gregorCommand } from '../gregor-command.js';
import { Progress } from '../progress.js';
import { UsageError } from '../usage-error.js';

export const clusterUsage = `gregor cluster <up|down|status|start|stop|kill|pause|resume> [node] [options]

A local cluster under one folder: a ZooKeeper ensemble (Debian's jars run as plain java
processes) and gregor brokers, each a separate process with its data and log in the folder.

  up        start what is not running; stays in the foreground (Ctrl-C stops everything)
            unless --detach, which returns once every broker is registered and answers
  down      stop the brokers (controlled shutdown, SIGKILL after a grace period), then ZooKeeper
  status    each node: pid, port, up/down, ZooKeeper mode, broker registered, controller
  start N   start one node (broker-2, zk-1)       stop N   SIGTERM one node
  kill N    SIGKILL one node                      pause N / resume N   SIGSTOP / SIGCONT

Options:
  --dir DIR            cluster folder (default ./.gregor)
  --config FILE        cluster file (YAML or .json): brokers (id, host, port, httpPort,
                       properties), zookeeper (nodes, ports, tickTime), properties for all;
                       without it (and without --brokers/--zookeepers) up reads the file named by
                       GREGOR_CLUSTER_CONFIG when that is set (other ports for scripts/demo.sh)
  --brokers N          brokers in the default layout (default 3: 127.0.0.1:9092.., HTTP 8780..)
  --zookeepers N       ZooKeeper nodes in the default layout (default 3: client ports 2181..)
  --detach, -d         up: return once the cluster serves, leaving it running
  --timeout-ms MS      up/start: bound on waiting for nodes to serve (default 90000)
  --purge              down: delete the folder (data and logs) afterwards
  --json               status: print JSON
  --help, -h`;

const OPTIONS = {
  dir: { type: 'string' },
  config: { type: 'string', short: 'c' },
  brokers: { type: 'string' },
  zookeepers: { type: 'string' },
  detach: { type: 'boolean', short: 'd' },
  'timeout-ms': { type: 'string' },
  purge: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const NODE_ACTIONS = new Set(['start', 'stop', 'kill', 'pause', 'resume']);

export async function clusterCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), clusterUsage, OPTIONS);
  if (values.help) {
    console.log(clusterUsage);
    return 0;
  }
  const [action, nodeName, ...extra] = positionals;
  if (!action) throw new UsageError('missing action', clusterUsage);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, clusterUsage);
  const dir = resolve(values.dir ?? '.gregor');
  const readyTimeoutMs = intOption(values['timeout-ms'], 'timeout-ms', clusterUsage, 90_000, 1000);
  // On a terminal, `up` keeps a status line (the step it waits on, and for how long) under its messages.
  const progress = new Progress();
  let step = '';
  const info = (message: string): void => {
    step = message;
    progress.log(`gregor cluster: ${message}`);
  };

  if (NODE_ACTIONS.has(action)) {
    if (!nodeName) throw new UsageError(`cluster ${action} needs a node name (e.g. broker-2, zk-1)`, clusterUsage);
    const cluster = openCluster(dir, readyTimeoutMs);
    const target = cluster.node(nodeName); // unknown names throw with the list
    switch (action) {
      case 'start':
        if (target.node.isRunning()) {
          info(`${nodeName} already runs (pid ${target.node.pid})`);
          return 0;
        }
        await cluster.startNode(nodeName);
        info(`${nodeName} started (pid ${target.node.pid})`);
        return 0;
      case 'stop':
        await cluster.stopNode(nodeName);
        info(`${nodeName} stopped`);
        return 0;
      case 'kill':
        await cluster.killNode(nodeName);
        info(`${nodeName} killed`);
        return 0;
      case 'pause':
        cluster.pauseNode(nodeName);
        info(`${nodeName} paused (SIGSTOP); \`gregor cluster resume ${nodeName}\` wakes it`);
        return 0;
      default:
        cluster.resumeNode(nodeName);
        info(`${nodeName} resumed`);
        return 0;
    }
  }
  if (nodeName) throw new UsageError(`cluster ${action} takes no node name`, clusterUsage);

  switch (action) {
    case 'up': {
      const spec = resolveSpec(dir, values);
      const cluster = new LocalCluster({ dir, spec, gregorCommand: gregorCommand(), detached: true, readyTimeoutMs });
      progress.start(() => `gregor cluster up: ${step || 'starting'} (${progress.elapsed})`);
      const stopProgress = (): void => progress.done();
      return values.detach ? upDetached(cluster, info, stopProgress).finally(stopProgress) : upForeground(cluster, info, stopProgress).finally(stopProgress);
    }
    case 'down': {
      if (!LocalCluster.exists(dir)) {
        info(`no cluster in ${dir}`);
        return 0;
      }
      const cluster = openCluster(dir, readyTimeoutMs);
      await cluster.down({ onProgress: info });
      if (values.purge) {
        rmSync(dir, { recursive: true, force: true });
        info(`removed ${dir}`);
      }
      info('cluster stopped');
      return 0;
    }
    case 'status': {
      const cluster = openCluster(dir, readyTimeoutMs);
      const status = await cluster.status();
      console.log(values.json ? JSON.stringify(status, null, 2) : formatStatus(status));
      return 0;
    }
    default:
      throw new UsageError(`unknown action "${action}"`, clusterUsage);
  }
}

function openCluster(dir: string, readyTimeoutMs: number): LocalCluster {
  if (!LocalCluster.exists(dir)) throw new ConfigError(`no cluster in ${dir}; start one with \`gregor cluster up --dir ${dir}\``);
  return LocalCluster.open(dir, { gregorCommand: gregorCommand(), detached: true, readyTimeoutMs });
}

/** The layout: a cluster file, else --brokers/--zookeepers, else what the folder holds, else the default. */
function resolveSpec(dir: string, flags: { config?: string; brokers?: string; zookeepers?: string }): ClusterSpec {
  const fromEnv = process.env['GREGOR_CLUSTER_CONFIG'];
  const values = flags.config === undefined && flags.brokers === undefined && flags.zookeepers === undefined && fromEnv ? { ...flags, config: fromEnv } : flags;
  const saved = LocalCluster.savedSpec(dir);
  const explicit = values.config !== undefined || values.brokers !== undefined || values.zookeepers !== undefined;
  if (values.config !== undefined && (values.brokers !== undefined || values.zookeepers !== undefined)) {
    throw new UsageError('--config and --brokers/--zookeepers exclude each other (put the counts in the cluster file)', clusterUsage);
  }
  if (!explicit) return saved ?? defaultClusterSpec();
  const spec =
    values.config !== undefined
      ? readClusterFile(values.config)
      : defaultClusterSpec({
          brokers: intOption(values.brokers, 'brokers', clusterUsage, 3, 1, 99),
          zookeepers: intOption(values.zookeepers, 'zookeepers', clusterUsage, 3, 1, 99),
        });
  if (saved && JSON.stringify(saved) !== JSON.stringify(spec)) {
    throw new ConfigError(`${dir} holds a cluster with another layout; stop and remove it first (\`gregor cluster down --purge --dir ${dir}\`) or use another --dir`);
  }
  return spec;
}

async function upDetached(cluster: LocalCluster, info: (m: string) => void, started: () => void): Promise<number> {
  const nodes = await cluster.up({ onProgress: info }).catch((error: unknown) => {
    info('cluster is partly up; `gregor cluster status` shows what runs, `gregor cluster down` stops it');
    throw error;
  });
  info(nodes.length === 0 ? 'everything was already running' : `started ${nodes.join(', ')}`);
  started();
  printWhere(cluster);
  return 0;
}

async function upForeground(cluster: LocalCluster, info: (m: string) => void, started: () => void): Promise<number> {
  let stopping: Promise<void> | undefined;
  const stopAll = (): Promise<void> => {
    stopping ??= (async () => {
      info('stopping the cluster (Ctrl-C again kills it)');
      await cluster.down({ onProgress: info });
    })();
    return stopping;
  };
  const done = new Promise<number>((resolveDone) => {
    let signals = 0;
    const onSignal = (): void => {
      if (++signals > 1) {
        info('killing every node');
        void cluster.kill().finally(() => resolveDone(130));
        return;
      }
      void stopAll().then(() => resolveDone(0), () => resolveDone(1));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  try {
    await cluster.up({ onProgress: info });
  } catch (error) {
    if (stopping) return done;
    await stopAll().catch(() => undefined);
    throw error;
  }
  if (stopping) return done;
  started();
  printWhere(cluster);
  info('running in the foreground; Ctrl-C stops the cluster');
  // Report nodes that die while we watch.
  const reported = new Set<string>();
  const watch = setInterval(() => {
    if (stopping) return;
    for (const name of cluster.nodeNames()) {
      const node = cluster.node(name).node;
      if (!node.isRunning() && !reported.has(name)) {
        reported.add(name);
        info(`${name} is no longer running (log: ${node.logFile})`);
      } else if (node.isRunning()) reported.delete(name);
    }
  }, 1000);
  const code = await done;
  clearInterval(watch);
  return code;
}

function printWhere(cluster: LocalCluster): void {
  console.log(`bootstrap servers: ${cluster.bootstrapServers}`);
  console.log(`zookeeper.connect: ${cluster.zookeeperConnect}`);
  const http = cluster.brokers.filter((b) => b.httpPort >= 0).map((b) => `http://${b.host}:${b.httpPort}`);
  if (http.length > 0) console.log(`HTTP admin:        ${http.join(' ')}`);
  console.log(`folder:            ${cluster.dir}`);
}

export function formatStatus(status: ClusterStatus): string {
  const rows = [['NODE', 'PID', 'PORT', 'STATE', 'DETAIL']];
  for (const n of status.nodes) {
    const detail: string[] = [];
    if (n.kind === 'zookeeper') {
      if (n.running) detail.push(n.zkMode ? `mode=${n.zkMode}` : 'not serving');
    } else {
      if (n.registered !== null && n.registered !== undefined) {
        detail.push(n.registered ? (n.running ? 'registered' : 'still registered (old session)') : 'not registered');
      }
      if (n.running) detail.push(n.answers ? 'answers' : 'not answering');
      if (n.httpPort !== undefined && n.httpPort >= 0) detail.push(`http=${n.httpPort}`);
      if (n.controller) detail.push('controller');
    }
    rows.push([n.name, n.pid === null ? '-' : String(n.pid), String(n.port), n.running ? 'up' : 'down', detail.join(', ')]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
  lines.push('');
  lines.push(`controller: ${status.controllerId === null ? (status.zookeeperServing ? 'none elected' : 'unknown (ZooKeeper not serving)') : `broker ${status.controllerId}`}`);
  lines.push(`bootstrap servers: ${status.bootstrapServers}`);
  lines.push(`zookeeper.connect: ${status.zookeeperConnect}`);
  lines.push(`folder: ${status.dir}`);
  return lines.join('\n');
}
