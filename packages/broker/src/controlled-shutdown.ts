import { ErrorCode, errorName, sleep } from '@gregor/common';
import { Connection } from '@gregor/net';
import { ControlledShutdown } from '@gregor/protocol';
import type { KafkaServer } from './kafka-server.js';

/**
 * Asks the controller to move leadership off this broker before it stops (Kafka's controlled
 * shutdown), retrying up to controlled.shutdown.max.retries until no partition is left led here.
 */
export async function requestControlledShutdown(server: KafkaServer): Promise<void> {
  const cfg = server.config;
  const log = server.log;
  for (let attempt = 1; attempt <= cfg.controlledShutdownMaxRetries; attempt++) {
    let remaining = -1;
    let errorCode: number = ErrorCode.NONE;
    if (server.controller.isActive) {
      const r = await server.controller.controlledShutdown(cfg.brokerId, BigInt(server.brokerEpoch));
      errorCode = r.errorCode;
      remaining = r.remaining.length;
    } else {
      const controllerId = server.metadataCache.controllerId;
      const controller = server.metadataCache.aliveBroker(controllerId);
      const endpoint = controller?.endpoints.find((e) => e.listenerName === cfg.interBrokerListenerName) ?? controller?.endpoints[0];
      if (!endpoint) {
        log.warn({ controllerId }, 'controlled shutdown: no known controller');
      } else {
        const conn = new Connection({
          host: endpoint.host,
          port: endpoint.port,
          clientId: `broker-${cfg.brokerId}-controlled-shutdown`,
          requestTimeoutMs: cfg.controllerSocketTimeoutMs,
          connectTimeoutMs: 5000,
          ...(server.interBrokerSecurity ? { security: server.interBrokerSecurity } : {}),
        });
        try {
          await conn.connect();
          const r = await conn.send(ControlledShutdown, { brokerId: cfg.brokerId, brokerEpoch: Number(server.brokerEpoch) });
          if (r) {
            errorCode = r.errorCode;
            remaining = r.remainingPartitions.length;
          }
        } catch (err) {
          log.warn({ err: (err as Error).message, attempt }, 'controlled shutdown request failed');
          errorCode = ErrorCode.NETWORK_EXCEPTION;
        } finally {
          await conn.close();
        }
      }
    }
    if (errorCode === ErrorCode.NONE && remaining === 0) {
      log.info({ attempt }, 'controlled shutdown succeeded');
      return;
    }
    log.warn({ attempt, error: errorName(errorCode), remaining }, 'controlled shutdown incomplete');
    if (attempt < cfg.controlledShutdownMaxRetries) await sleep(cfg.controlledShutdownRetryBackoffMs);
  }
  throw new Error(`controlled shutdown did not complete after ${cfg.controlledShutdownMaxRetries} attempts`);
}
