import type { AddressInfo } from 'node:net';
import type { Logger } from '@gregor/common';
import { ConsumerTimeoutError, ZookeeperConsumerConnector, type KafkaStream } from '@gregor/consumer';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ConsumerServiceConfig } from './service-config.js';

/**
 * A long-running group member (what containers run and chaos tests query): consumes its streams,
 * counting records per partition, and answers on HTTP
 *   GET /healthz           {"status":"ok"|"stopping", "consumerId"}
 *   GET /v1/consumer       group, consumer id, records consumed, rebalances, fetchers, queued bytes
 *   GET /v1/partitions     the owned partitions with consumed/fetched offsets, high watermark, lag, counts
 * `stop()` (SIGTERM) shuts the connector down in Kafka's order, then the HTTP server.
 */
export class ConsumerService {
  readonly connector: ZookeeperConsumerConnector;
  readonly app: FastifyInstance;
  readonly #log: Logger;
  #consumed = 0;
  readonly #perPartition = new Map<string, number>();
  #drained: Promise<void> = Promise.resolve();
  #stopping: Promise<void> | null = null;
  port = -1;

  private constructor(connector: ZookeeperConsumerConnector, log: Logger) {
    this.connector = connector;
    this.#log = log;
    this.app = Fastify({ logger: false });
    this.app.get('/healthz', async () => ({ status: this.#stopping ? 'stopping' : 'ok', consumerId: connector.consumerId }));
    this.app.get('/v1/consumer', async () => ({ consumed: this.#consumed, consumedByPartition: Object.fromEntries(this.#perPartition), ...connector.stats() }));
    this.app.get('/v1/partitions', async () => ({ consumerId: connector.consumerId, partitions: connector.ownedPartitions() }));
  }

  static async start(config: ConsumerServiceConfig, log: Logger): Promise<ConsumerService> {
    const connector = await ZookeeperConsumerConnector.create(config.consumer, { logger: log });
    const service = new ConsumerService(connector, log);
    try {
      await service.app.listen({ host: config.httpHost, port: config.httpPort });
      service.port = (service.app.server.address() as AddressInfo).port;
      const s = config.subscription;
      const streams = s.kind === 'static' ? Object.values(await connector.createMessageStreams(s.topics)).flat() : await connector.createMessageStreamsByFilter(s.filter, s.numStreams);
      service.#drained = Promise.all(streams.map((stream) => service.#drain(stream))).then(() => undefined);
    } catch (error) {
      await connector.shutdown();
      await service.app.close();
      throw error;
    }
    return service;
  }

  get consumed(): number {
    return this.#consumed;
  }

  async #drain(stream: KafkaStream): Promise<void> {
    for (;;) {
      try {
        for await (const m of stream) {
          this.#consumed++;
          const k = `${m.topic}-${m.partition}`;
          this.#perPartition.set(k, (this.#perPartition.get(k) ?? 0) + 1);
        }
        return;
      } catch (error) {
        if (error instanceof ConsumerTimeoutError) continue; // idle: keep serving
        this.#log.error({ err: error }, 'stream failed');
        return;
      }
    }
  }

  /** Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.connector.shutdown();
      await this.#drained;
      await this.app.close();
    })();
    return this.#stopping;
  }
}
