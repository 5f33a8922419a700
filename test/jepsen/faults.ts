// Faults (the nemesis). Each picks its target from the cluster's state when it starts (the leader of a
// partition, a follower, the controller), is applied, held for a bounded time by the scenario, and healed.
import { execFile } from 'node:child_process';
import { rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeReassignment } from '@gregor/zookeeper';
import type { JepsenCluster } from './cluster.js';
import type { History } from './history.js';
import { sleep } from './writers.js';

const run = promisify(execFile);

export interface FaultContext {
  cluster: JepsenCluster;
  history: History;
  topic: string;
  partitions: number[];
}

export interface PreparedFault {
  /** What exactly will be done, for the history (target broker, its role). */
  detail: string;
  apply(): Promise<void>;
  heal(): Promise<void>;
}

export interface Fault {
  name: string;
  prepare(ctx: FaultContext): Promise<PreparedFault>;
}

async function state(ctx: FaultContext, partition: number) {
  const s = await ctx.cluster.kafkaZk.getPartitionState(ctx.topic, partition);
  if (!s) throw new Error(`no state for ${ctx.topic}-${partition}`);
  return s.state;
}

async function leaderOf(ctx: FaultContext, partition: number): Promise<number> {
  const s = await state(ctx, partition);
  if (s.leader < 0) throw new Error(`${ctx.topic}-${partition} has no leader`);
  return s.leader;
}

/** A follower of the partition, preferring one that leads no partition of the topic (a pure follower). */
async function followerOf(ctx: FaultContext, partition: number): Promise<number> {
  const s = await state(ctx, partition);
  const leaders = new Set<number>();
  for (const p of ctx.partitions) leaders.add((await state(ctx, p)).leader);
  const followers = s.isr.filter((b) => b !== s.leader);
  const pick = followers.find((b) => !leaders.has(b)) ?? followers[0];
  if (pick === undefined) throw new Error(`${ctx.topic}-${partition} has no follower in its ISR ${s.isr}`);
  return pick;
}

async function controller(ctx: FaultContext): Promise<number> {
  const id = await ctx.cluster.kafkaZk.getControllerId();
  if (id === null) throw new Error('no controller');
  return id;
}

type Role = 'leader' | 'follower' | 'controller';

async function target(ctx: FaultContext, role: Role, partition: number): Promise<{ id: number; what: string }> {
  if (role === 'leader') {
    const id = await leaderOf(ctx, partition);
    return { id, what: `broker ${id}, leader of ${ctx.topic}-${partition}` };
  }
  if (role === 'follower') {
    const id = await followerOf(ctx, partition);
    return { id, what: `broker ${id}, follower of ${ctx.topic}-${partition}` };
  }
  const id = await controller(ctx);
  const leads = [];
  for (const p of ctx.partitions) if ((await state(ctx, p)).leader === id) leads.push(p);
  return { id, what: `broker ${id}, the controller${leads.length > 0 ? ` (leads partitions ${leads.join(',')})` : ''}` };
}

/** kill -9 of a broker; healed by starting it again (same data). */
export function kill(role: Role, partition = 0): Fault {
  return {
    name: `kill-${role}`,
    async prepare(ctx) {
      const t = await target(ctx, role, partition);
      return { detail: `kill -9 ${t.what}`, apply: () => ctx.cluster.kill(t.id), heal: () => ctx.cluster.start(t.id) };
    },
  };
}

/** SIGSTOP of a broker (sockets and ZooKeeper session open, nothing answered); healed by SIGCONT. */
export function pause(role: Role, partition = 0): Fault {
  return {
    name: `pause-${role}`,
    async prepare(ctx) {
      const t = await target(ctx, role, partition);
      return { detail: `SIGSTOP ${t.what}`, apply: () => ctx.cluster.pause(t.id), heal: () => ctx.cluster.resume(t.id) };
    },
  };
}

function needNetwork(ctx: FaultContext) {
  if (!ctx.cluster.network) throw new Error('network faults need the containers (compose) cluster');
  return ctx.cluster.network;
}

/** The leader of a partition cut from every other broker (it keeps ZooKeeper): its followers stop fetching. */
export function partitionLeaderFromBrokers(partition = 0): Fault {
  return {
    name: 'partition-leader-from-brokers',
    async prepare(ctx) {
      const net = needNetwork(ctx);
      const t = await target(ctx, 'leader', partition);
      const others = ctx.cluster.brokerIds.filter((b) => b !== t.id).map((b) => ctx.cluster.service(b));
      const cut = await net.planCut(ctx.cluster.service(t.id), others);
      return {
        detail: `network: ${t.what} cut from brokers ${others.join(',')} (ZooKeeper still reachable)`,
        apply: () => cut.apply(),
        heal: () => cut.heal(),
      };
    },
  };
}

/**
 * A broker cut from every ZooKeeper node but still reaching the other brokers: its session expires after
 * zookeeper.session.timeout.ms, the controller moves its leaderships, and it must stop acting as leader.
 */
export function partitionFromZooKeeper(role: Role, partition = 0): Fault {
  return {
    name: role === 'leader' ? 'zk-session-expiry-leader' : `partition-${role}-from-zookeeper`,
    async prepare(ctx) {
      const net = needNetwork(ctx);
      const t = await target(ctx, role, partition);
      const zks = ctx.cluster.zookeeperServices;
      const cut = await net.planCut(ctx.cluster.service(t.id), zks);
      return {
        detail: `network: ${t.what} cut from ZooKeeper (${zks.join(',')}), still reaching the brokers`,
        apply: () => cut.apply(),
        heal: () => cut.heal(),
      };
    },
  };
}

/** The controller cut from every broker and every ZooKeeper node (clients on the host still reach it). */
export function isolateController(): Fault {
  return {
    name: 'isolate-controller',
    async prepare(ctx) {
      const net = needNetwork(ctx);
      const t = await target(ctx, 'controller', 0);
      const peers = [...ctx.cluster.brokerIds.filter((b) => b !== t.id).map((b) => ctx.cluster.service(b)), ...ctx.cluster.zookeeperServices];
      const cut = await net.planCut(ctx.cluster.service(t.id), peers);
      return {
        detail: `network: ${t.what} isolated from ${peers.join(',')}`,
        apply: () => cut.apply(),
        heal: () => cut.heal(),
      };
    },
  };
}

/**
 * The broker whose log dir is `dir` (a size-limited tmpfs) gets a full disk: a ballast file takes every
 * free byte. Healed by deleting it; a broker that exited meanwhile is started again.
 */
export function diskFull(brokerId: number, dir: string): Fault {
  return {
    name: 'disk-full',
    async prepare(ctx) {
      const leads = [];
      for (const p of ctx.partitions) if ((await state(ctx, p)).leader === brokerId) leads.push(p);
      const ballast = join(dir, 'jepsen-ballast');
      return {
        detail: `log dir of broker ${brokerId} full (${dir})${leads.length > 0 ? `, leader of partitions ${leads.join(',')}` : ''}`,
        async apply() {
          // Zeros until ENOSPC: the broker's writes racing with it fail from then on.
          await run('sh', ['-c', 'cat /dev/zero >> "$1" 2>/dev/null || true', 'fill', ballast], { timeout: 30_000 });
          const s = statfsSync(dir);
          ctx.history.note(`log dir of broker ${brokerId}: ${s.bavail * s.bsize} bytes free after the fill`);
        },
        async heal() {
          rmSync(ballast, { force: true });
          if (!(await ctx.cluster.isRunning(brokerId))) {
            ctx.history.note(`broker ${brokerId} exited during the disk-full fault: starting it again`);
            await ctx.cluster.start(brokerId);
          }
        },
      };
    },
  };
}

/**
 * A rolling restart (SIGTERM, controlled shutdown, start; one broker at a time) while a partition
 * reassignment is in progress: the reassignment is written to /admin/reassign_partitions right before the
 * first broker, one of the new replicas, is told to stop, so it cannot complete before that restart.
 * Healed when the restart is done and the reassignment has completed.
 */
export function rollingRestartDuringReassignment(target: number[][], order: number[]): Fault {
  return {
    name: 'rolling-restart-during-reassignment',
    async prepare(ctx) {
      let rolling: Promise<void> = Promise.resolve();
      return {
        detail: `reassign ${ctx.topic} to ${JSON.stringify(target)}; restart brokers ${order.join(',')} one by one`,
        async apply() {
          const zk = ctx.cluster.kafkaZk.zk;
          rolling = (async () => {
            for (const [i, id] of order.entries()) {
              const pending = (await zk.exists('/admin/reassign_partitions')) !== null;
              ctx.history.note(`restarting broker ${id}${i > 0 ? `; reassignment ${pending ? 'still in progress' : 'done'}` : ''}`);
              if (i === 0) {
                // Written before the first broker (a new replica) is told to stop: ZooKeeper delivers the
                // controller's watches in zxid order, so the move is seen while that broker is registered (the
                // controller drops moves onto brokers that are not live) and cannot finish before its restart.
                await zk.create('/admin/reassign_partitions', encodeReassignment(target.map((replicas, partition) => ({ topic: ctx.topic, partition, replicas }))));
                ctx.history.note('reassignment written to /admin/reassign_partitions');
              }
              await ctx.cluster.restart(id);
            }
          })();
          // Surface a failed restart at heal time, not as an unhandled rejection.
          rolling.catch(() => undefined);
        },
        async heal() {
          await rolling;
          const zk = ctx.cluster.kafkaZk.zk;
          const deadline = Date.now() + 90_000;
          while ((await zk.exists('/admin/reassign_partitions')) !== null) {
            if (Date.now() > deadline) throw new Error('the reassignment did not complete within 90 s of the rolling restart');
            await sleep(250);
          }
          ctx.history.note('reassignment complete');
        },
      };
    },
  };
}

/**
 * Two faults in a row, aimed at the follower's truncation after a leader change (issue 11, "Truncation
 * after promotion"): kill -9 the leader; the moment ZooKeeper names its successor, SIGSTOP that successor.
 * The other followers have just become its followers and ask it OffsetsForLeaderEpoch, which now hangs
 * (re-sent after each request timeout). When the successor's session has expired one of them is elected
 * and takes acks=all writes (RF 4 keeps two in the ISR); right after the first such ack the successor is
 * woken up and answers the request still in flight. A follower-turned-leader that still acts on that
 * answer truncates records it acknowledged as leader. Healed by starting the first leader again.
 */
export function killLeaderThenPauseSuccessor(partition = 0): Fault {
  return {
    name: 'kill-leader-then-pause-successor',
    async prepare(ctx) {
      const first = await leaderOf(ctx, partition);
      const zk = ctx.cluster.kafkaZk;
      const leaderOther = async (not: number[], timeoutMs: number, what: string): Promise<number> => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const s = (await zk.getPartitionState(ctx.topic, partition))?.state;
          if (s && s.leader >= 0 && !not.includes(s.leader)) return s.leader;
          if (Date.now() > deadline) throw new Error(`no ${what} for ${ctx.topic}-${partition} within ${timeoutMs} ms`);
          await sleep(5);
        }
      };
      return {
        detail: `kill -9 broker ${first} (leader of ${ctx.topic}-${partition}); SIGSTOP its successor until the next leader acknowledged a write`,
        async apply() {
          await ctx.cluster.kill(first);
          const successor = await leaderOther([first], 60_000, 'successor');
          await ctx.cluster.pause(successor);
          ctx.history.note(`paused broker ${successor}, elected leader of ${ctx.topic}-${partition} after broker ${first}`);
          try {
            const third = await leaderOther([first, successor], 60_000, 'leader after the paused successor');
            const electedAt = ctx.history.now();
            ctx.history.note(`broker ${third} elected leader of ${ctx.topic}-${partition}; waking broker ${successor} after its first ack`);
            const deadline = Date.now() + 20_000;
            while (!ctx.history.events.some((e) => e.f === 'send' && e.type === 'ok' && e.partition === partition && e.time > electedAt) && Date.now() < deadline) await sleep(5);
          } finally {
            await ctx.cluster.resume(successor);
            ctx.history.note(`resumed broker ${successor}`);
          }
        },
        heal: () => ctx.cluster.start(first),
      };
    },
  };
}
