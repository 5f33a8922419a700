import type { ZkClient } from './zk-client.js';
import { ZkError, ZkErrorCode } from './zk-errors.js';
import type { ZkOp } from './zk-types.js';
import { ControllerMovedError } from './kafka-zk-errors.js';
import * as paths from './paths.js';

/** Where the current ZkClient comes from: a fixed client, or a ZkSession that replaces it after expiry. */
export type ZkClientSource = ZkClient | { readonly client: ZkClient };

export function isCode(error: unknown, code: number): boolean {
  return error instanceof ZkError && error.zkCode === code;
}

/**
 * The base of KafkaZkClient: the current session's ZkClient and the writes fenced on /controller_epoch.
 * KafkaZkClient is split by znode family into a chain of classes, one file each (configs, notifications
 * and admin requests, old consumers, then brokers/controller/topics/partition state).
 */
export class ZnodeAccess {
  readonly #source: ZkClientSource;

  constructor(source: ZkClientSource) {
    this.#source = source;
  }

  get zk(): ZkClient {
    const source = this.#source;
    return 'client' in source ? source.client : source;
  }

  /** Sets the node, creating it and any missing parent (Kafka's createRecursive) when it does not exist. */
  protected async setOrCreate(path: string, data: Buffer): Promise<void> {
    const setOrCreate = async () => {
      if (!(await this.zk.createIfAbsent(path, data))) await this.zk.setData(path, data);
    };
    try {
      await setOrCreate();
    } catch (e) {
      if (!isCode(e, ZkErrorCode.NO_NODE)) throw e;
      await this.zk.mkdirp(path.slice(0, path.lastIndexOf('/')));
      await setOrCreate();
    }
  }

  /** setData conditional on `expectedVersion`; with `controllerEpochZkVersion` also on /controller_epoch (controller writes). */
  protected async fencedSetData(path: string, data: Buffer, expectedVersion: number, controllerEpochZkVersion: number | undefined): Promise<number> {
    if (controllerEpochZkVersion === undefined) return (await this.zk.setData(path, data, expectedVersion)).version;
    const ops: ZkOp[] = [
      { type: 'check', path: paths.controllerEpochPath, version: controllerEpochZkVersion },
      { type: 'setData', path, data, version: expectedVersion },
    ];
    try {
      const results = await this.zk.multi(ops);
      const set = results[1];
      if (set?.type !== 'setData') throw new Error('unexpected multi result');
      return set.stat.version;
    } catch (error) {
      throw this.fencingError(error, controllerEpochZkVersion);
    }
  }

  /**
   * Deletes a node and everything below it, each node in a multi that first checks /controller_epoch
   * (Kafka's deleteRecursive with expectedControllerEpochZkVersion): a controller that lost its place
   * gets ControllerMovedError and deletes nothing more. A node already gone is fine.
   */
  protected async fencedDeleteRecursive(path: string, controllerEpochZkVersion: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let children: string[];
      try {
        children = await this.zk.getChildren(path);
      } catch (error) {
        if (isCode(error, ZkErrorCode.NO_NODE)) return;
        throw error;
      }
      await Promise.all(children.map((child) => this.fencedDeleteRecursive(`${path}/${child}`, controllerEpochZkVersion)));
      try {
        await this.zk.multi([
          { type: 'check', path: paths.controllerEpochPath, version: controllerEpochZkVersion },
          { type: 'delete', path, version: -1 },
        ]);
        return;
      } catch (error) {
        if (error instanceof ZkError && error.opIndex === 1 && error.zkCode === ZkErrorCode.NO_NODE) return;
        // Someone added a child meanwhile: go around again, a few times.
        if (error instanceof ZkError && error.opIndex === 1 && error.zkCode === ZkErrorCode.NOT_EMPTY && attempt < 5) continue;
        throw this.fencingError(error, controllerEpochZkVersion);
      }
    }
  }

  /** A failed check on /controller_epoch (op 0) means another controller took over. */
  protected fencingError(error: unknown, controllerEpochZkVersion: number): Error {
    if (error instanceof ZkError && error.opIndex === 0 && error.path === paths.controllerEpochPath) {
      return new ControllerMovedError(`controller epoch zkVersion ${controllerEpochZkVersion} is stale: another broker is controller (${error.zkCodeName})`);
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}
