import type { Stat } from 'node-zookeeper-client';

/** A znode's Stat with the 64-bit fields decoded. */
export interface ZkStat {
  /** Data version: the precondition for setData/delete (Kafka's "zkVersion"). */
  version: number;
  /** Children version. */
  cversion: number;
  aversion: number;
  /** Creating transaction id; for /brokers/ids/N this is Kafka's broker epoch. */
  czxid: bigint;
  mzxid: bigint;
  pzxid: bigint;
  ctime: number;
  mtime: number;
  /** Session id owning an ephemeral node, 0n for persistent ones. */
  ephemeralOwner: bigint;
  dataLength: number;
  numChildren: number;
}

export type ZkCreateMode = 'persistent' | 'ephemeral' | 'persistent_sequential' | 'ephemeral_sequential';

export type ZkData = Buffer | string | null;

export type ZkOp =
  | { type: 'create'; path: string; data?: ZkData; mode?: ZkCreateMode }
  | { type: 'check'; path: string; version: number }
  | { type: 'setData'; path: string; data: ZkData; version: number }
  | { type: 'delete'; path: string; version: number };

export type ZkOpResult =
  | { type: 'create'; path: string }
  | { type: 'check' }
  | { type: 'setData'; stat: ZkStat }
  | { type: 'delete' };

export type ZkWatchEventType = 'created' | 'deleted' | 'dataChanged' | 'childrenChanged';

export interface ZkWatchEvent {
  type: ZkWatchEventType;
  path: string;
}

/** One-shot watcher (ZooKeeper semantics: re-register and re-read on every event). */
export type ZkWatcher = (event: ZkWatchEvent) => void | Promise<void>;

function int64(buffer: Buffer): bigint {
  return buffer.readBigInt64BE(0);
}

export function toZkStat(stat: Stat): ZkStat {
  return {
    version: stat.version,
    cversion: stat.cversion,
    aversion: stat.aversion,
    czxid: int64(stat.czxid),
    mzxid: int64(stat.mzxid),
    pzxid: int64(stat.pzxid),
    ctime: Number(int64(stat.ctime)),
    mtime: Number(int64(stat.mtime)),
    ephemeralOwner: int64(stat.ephemeralOwner),
    dataLength: stat.dataLength,
    numChildren: stat.numChildren,
  };
}

export function toBuffer(data: ZkData | undefined): Buffer | undefined {
  if (data === null || data === undefined) return undefined;
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}
