import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { ErrorCode } from '@gregor/common';
import type { DescribeLogDirsRequest, DescribeLogDirsResponse, DescribeLogDirsTopic } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * DescribeLogDirs (kafka-log-dirs, kafka-ui, AKHQ): every log dir of this broker with the size of each hosted
 * partition asked for (null = all) and its offset lag max(HW - LEO, 0) (Kafka's getLogEndOffsetLag for a current
 * log; gregor has no future logs). A dir that failed (KIP-112) or cannot be read and written answers KAFKA_STORAGE_ERROR.
 */
export function describeLogDirsHandler(s: BrokerServices): ApiHandler<DescribeLogDirsRequest, DescribeLogDirsResponse> {
  return (req) => {
    const wanted = req.topics === null ? null : new Set(req.topics.flatMap((t) => t.partitions.map((p) => `${t.topic}\u0000${p}`)));
    const results = [...s.replicaManager.logManager.logsByDir()].map(([dir, logs]) => {
      const logDir = resolve(dir);
      // KIP-112: a dir taken offline after an I/O error stays offline until the broker restarts.
      if (!s.replicaManager.logManager.isLogDirOnline(dir)) return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, logDir, topics: [] };
      try {
        accessSync(logDir, constants.R_OK | constants.W_OK);
      } catch {
        return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, logDir, topics: [] };
      }
      const byTopic = new Map<string, DescribeLogDirsTopic>();
      for (const log of logs) {
        if (wanted && !wanted.has(`${log.topic}\u0000${log.partition}`)) continue;
        let t = byTopic.get(log.topic);
        if (!t) byTopic.set(log.topic, (t = { name: log.topic, partitions: [] }));
        t.partitions.push({
          partitionIndex: log.partition,
          partitionSize: log.sizeInBytes(),
          offsetLag: Math.max(log.highWatermark - log.logEndOffset, 0),
          isFutureKey: false,
        });
      }
      return { errorCode: ErrorCode.NONE, logDir, topics: [...byTopic.values()] };
    });
    return { throttleTimeMs: 0, results };
  };
}
