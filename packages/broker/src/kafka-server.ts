import { createLogger, type Logger } from '@gregor/common';
import { KafkaController, KafkaZkControllerStore } from '@gregor/controller';
import { LogDirFailureChannel, ReadBufferPool, type LogCleaner, type LogManager, type SegmentIo } from '@gregor/storage';
import type { GroupCoordinator } from '@gregor/coordinator'; // group coordinator
import { startGroupCoordinator } from './coordinator/group-coordinator-setup.js'; // group coordinator
import { startLogCleaner } from './log-cleaner-setup.js'; // group coordinator (log compaction)
import { createLogManager } from './log-manager-setup.js';
import { KafkaZkClient, ZkSession } from '@gregor/zookeeper';
import { AdminManager } from './admin/admin-manager.js';
import type { BrokerServices } from './broker-services.js';
import type { ReplicaManager } from './cluster/replica-manager.js';
import { startReplicaManager } from './cluster/replica-manager-setup.js';
import { FetchManager } from './fetch-session/fetch-manager.js';
import { FetchSessionCache } from './fetch-session/fetch-session-cache.js';
import { LogDirFailureHandler } from './cluster/log-dir-failure-handler.js';
import { IsrManager } from './replication/isr-manager.js';
import type { BrokerConfig, Endpoint } from './config/broker-config.js';
import { TopicConfigCache } from './config/topic-config-cache.js';
import { ConfigChangeListener } from './config/config-change-listener.js';
import { DynamicBrokerConfig } from './config/dynamic-broker-config.js';
import { ConfigAdminManager } from './admin/config-admin-manager.js';
import { registerHandlers } from './handlers/index.js';
import { KafkaApis } from './kafka-apis.js';
import { MetadataCache } from './metadata/metadata-cache.js';
import type { SocketServer } from './network/socket-server.js';
import { createSocketServer } from './network/socket-server-setup.js';
import { requestControlledShutdown } from './controlled-shutdown.js';
import type { ClientSecurity } from '@gregor/net';
import { ZkAclStore } from '@gregor/zookeeper';
import { AclAuthorizer } from './security/acl-authorizer.js';
import { AuthHelper } from './security/auth-helper.js';
import { interBrokerClientSecurity } from './security/inter-broker-security.js';
import { ScramCredentialCache } from './security/scram-credential-cache.js';
import { ProducerIdManager } from './producer/producer-id-manager.js';

export type BrokerState = 'NotRunning' | 'Starting' | 'RunningAsBroker' | 'PendingControlledShutdown' | 'ShuttingDown';

/**
 * One gregor broker (Kafka's KafkaServer): log manager, ZooKeeper session and registration,
 * socket server, replica manager, and the controller candidate. `startup()` and `shutdown()`
 * own every loop and timer the broker starts.
 */
export class KafkaServer {
  readonly config: BrokerConfig;
  readonly log: Logger;
  state: BrokerState = 'NotRunning';
  clusterId: string | null = null;
  brokerEpoch = -1n;
  session!: ZkSession;
  zk!: KafkaZkClient;
  logManager!: LogManager;
  metadataCache!: MetadataCache;
  topicConfigs!: TopicConfigCache;
  replicaManager!: ReplicaManager;
  fetchManager!: FetchManager;
  /** Fetch reads go into these buffers and come back once the socket has flushed the response. */
  readonly readPool = new ReadBufferPool();
  /** Produce requests spanning socket reads are assembled in these, given back once answered. */
  readonly requestPool = new ReadBufferPool();
  isrManager!: IsrManager;
  configChangeListener!: ConfigChangeListener;
  dynamicConfig!: DynamicBrokerConfig;
  configAdmin!: ConfigAdminManager;
  controller!: KafkaController;
  groupCoordinator!: GroupCoordinator; // group coordinator
  logCleaner!: LogCleaner; // group coordinator (log compaction)
  adminManager!: AdminManager;
  producerIdManager!: ProducerIdManager;
  logDirFailureHandler!: LogDirFailureHandler;
  apis!: KafkaApis;
  socketServer!: SocketServer;
  /** TLS/SASL of this broker's connections to other brokers' inter-broker listener; undefined = PLAINTEXT. */
  interBrokerSecurity: ClientSecurity | undefined;
  scramCredentials!: ScramCredentialCache;
  /** AclAuthorizer when authorizer.class.name names it; null otherwise. */
  authorizer: AclAuthorizer | null = null;
  auth!: AuthHelper;
  readonly startedAt = Date.now();
  /** Fetches whose max_bytes was capped by fetch.max.bytes / replica.fetch.response.max.bytes. */
  readonly #fetchCaps = { 'fetch.max.bytes': 0, 'replica.fetch.response.max.bytes': 0 };
  #hwCheckpointTimer: NodeJS.Timeout | undefined;
  #shutdown: Promise<void> | null = null;

  readonly #halt: () => void;
  readonly #segmentIo: SegmentIo | undefined;

  /**
   * `halt`: what happens when every log dir failed (Kafka's Exit.halt(1); in-process tests pass their own).
   * `segmentIo`: the segments' file calls (default node:fs; in-process tests wrap it, e.g. to count fsyncs).
   */
  constructor(config: BrokerConfig, opts: { logger?: Logger; halt?: () => void; segmentIo?: SegmentIo } = {}) {
    this.config = config;
    this.#segmentIo = opts.segmentIo;
    this.log = opts.logger ?? createLogger('gregor-broker', { bindings: { brokerId: config.brokerId } });
    this.#halt = opts.halt ?? (() => process.exit(1));
  }

  /** KIP-112: with no log dir left the broker cannot serve anything; it stops at once and the controller moves its leaders. */
  readonly #onAllLogDirsOffline = (): void => {
    this.log.flush?.();
    this.#halt();
  };

  get brokerId(): number {
    return this.config.brokerId;
  }

  /** Times each limit was hit since startup (socket server limits and fetch caps), for metrics. */
  limitHits(): Map<string, number> {
    const out = new Map<string, number>(this.socketServer ? this.socketServer.limitHits() : []);
    for (const [k, v] of Object.entries(this.#fetchCaps)) out.set(k, v);
    return out;
  }

  async startup(): Promise<void> {
    const cfg = this.config;
    this.state = 'Starting';
    this.log.info({ zookeeper: cfg.zookeeperConnect, logDirs: cfg.logDirs }, 'starting');
    for (const { name, suggestion } of cfg.unknownSettings) {
      this.log.warn({ setting: name, suggestion }, `The configuration '${name}' was supplied but isn't a known config.${suggestion ? ` Did you mean '${suggestion}'?` : ''}`);
    }

    this.session = new ZkSession({
      connectString: cfg.zookeeperConnect,
      sessionTimeoutMs: cfg.zookeeperSessionTimeoutMs,
      connectTimeoutMs: cfg.zookeeperConnectionTimeoutMs,
      logger: this.log.child({ component: 'zookeeper' }),
    });
    await this.session.start();
    this.zk = new KafkaZkClient(this.session);
    await this.zk.ensurePersistentPaths();
    // Reads the inter-broker keystore/truststore now: a bad path stops the broker naming the setting.
    this.interBrokerSecurity = interBrokerClientSecurity(cfg);
    this.clusterId = await this.zk.getOrCreateClusterId();
    // Dynamic broker configs (/config/brokers/<default>, /config/brokers/<id>) apply before any component reads the config.
    this.dynamicConfig = new DynamicBrokerConfig(cfg, this.log.child({ component: 'dynamic-config' }));
    await this.dynamicConfig.load(this.zk);

    const logDirFailures = new LogDirFailureChannel(this.log.child({ component: 'log-dir-failure' }));
    this.logManager = createLogManager(cfg, this.clusterId, logDirFailures, this.log.child({ component: 'log' }), this.#segmentIo);
    // Loading yields to the event loop: the ZooKeeper session above keeps its heartbeats while thousands of logs load.
    await this.logManager.startupAsync();

    this.metadataCache = new MetadataCache(cfg.brokerId);
    this.metadataCache.clusterId = this.clusterId;
    this.topicConfigs = new TopicConfigCache(cfg, (t) => this.zk.getTopicConfig(t));
    this.isrManager = new IsrManager(this.zk, this.log.child({ component: 'isr' }));
    this.scramCredentials = new ScramCredentialCache(this.log.child({ component: 'credentials' }));
    this.configChangeListener = new ConfigChangeListener(this.zk, this.topicConfigs, this.logManager, this.dynamicConfig, this.log.child({ component: 'config' }), (user) =>
      this.scramCredentials.refresh(this.zk, user),
    );
    await this.configChangeListener.start();
    // After the listener recorded where it starts: a user changed from now on is seen by one or the other.
    await this.scramCredentials.load(this.zk);
    if (cfg.security.authorizer) {
      this.authorizer = new AclAuthorizer(new ZkAclStore(this.session), cfg.security.authorizer, this.log.child({ component: 'authorizer' }));
      await this.authorizer.start();
    }
    this.auth = new AuthHelper(this.authorizer, cfg.interBrokerListenerName);
    this.dynamicConfig.onReconfigure((changed) => {
      this.configChangeListener.applyBrokerDefaults();
      // As Kafka's DynamicLogConfig: turning unclean election on lets the controller elect offline partitions now.
      if (changed.includes('uncleanLeaderElectionEnable') && cfg.uncleanLeaderElectionEnable) this.controller?.enableDefaultUncleanLeaderElection();
    });
    await this.dynamicConfig.load(this.zk); // a change made before the listener watched
    this.replicaManager = startReplicaManager(
      cfg,
      { logManager: this.logManager, topicConfigs: this.topicConfigs, metadataCache: this.metadataCache, isrManager: this.isrManager, interBrokerSecurity: this.interBrokerSecurity },
      this.log.child({ component: 'replica-manager' }),
    );
    this.fetchManager = new FetchManager(new FetchSessionCache(cfg.maxIncrementalFetchSessionCacheSlots), this.log.child({ component: 'fetch-session' }));
    this.logDirFailureHandler = new LogDirFailureHandler({
      channel: logDirFailures,
      logManager: this.logManager,
      replicaManager: this.replicaManager,
      propagateLogDirEvent: () => this.zk.propagateLogDirEvent(cfg.brokerId),
      onAllLogDirsOffline: this.#onAllLogDirsOffline,
      logger: this.log.child({ component: 'log-dir-failure' }),
    });
    this.logDirFailureHandler.start();
    this.logCleaner = startLogCleaner(cfg, this.logManager, this.topicConfigs, this.log.child({ component: 'log-cleaner' })); // group coordinator (log compaction)
    this.groupCoordinator = startGroupCoordinator(cfg, this.replicaManager, this.log.child({ component: 'group-coordinator' })); // group coordinator
    this.controller = new KafkaController(
      {
        brokerId: cfg.brokerId,
        interBrokerListenerName: cfg.interBrokerListenerName,
        ...(this.interBrokerSecurity ? { interBrokerSecurity: this.interBrokerSecurity } : {}),
        get uncleanLeaderElectionEnable() {
          return cfg.uncleanLeaderElectionEnable; // a dynamic broker config: read at each election
        },
        deleteTopicEnable: cfg.deleteTopicEnable,
        controllerSocketTimeoutMs: cfg.controllerSocketTimeoutMs,
        autoLeaderRebalanceEnable: cfg.autoLeaderRebalanceEnable,
        leaderImbalanceCheckIntervalSeconds: cfg.leaderImbalanceCheckIntervalSeconds,
        leaderImbalancePerBrokerPercentage: cfg.leaderImbalancePerBrokerPercentage,
      },
      new KafkaZkControllerStore(this.zk),
      this.log,
    );
    this.adminManager = new AdminManager(this.zk, this.metadataCache, cfg, this.log.child({ component: 'admin' }));
    this.configAdmin = new ConfigAdminManager({
      zk: this.zk,
      metadataCache: this.metadataCache,
      dynamicConfig: this.dynamicConfig,
      applyTopicConfig: (topic, overrides) => this.configChangeListener.applyTopicConfig(topic, overrides),
      log: this.log.child({ component: 'config-admin' }),
    });
    // A block of producer ids claimed at startup, as Kafka's ProducerIdManager does.
    this.producerIdManager = new ProducerIdManager(cfg.brokerId, (id) => this.zk.claimProducerIdBlock(id), this.log.child({ component: 'producer-ids' }));
    await this.producerIdManager.startup();

    this.apis = new KafkaApis(this.log);
    registerHandlers(this.apis, this.#services());
    this.socketServer = createSocketServer(
      cfg,
      { apis: this.apis, scramCredentials: this.scramCredentials, readPool: this.readPool, requestPool: this.requestPool },
      this.log.child({ component: 'socket-server' }),
    );
    await this.socketServer.start();
    if (!this.authorizer && cfg.listeners.length === 1) {
      this.log.warn(
        { listener: cfg.interBrokerListenerName },
        `${cfg.interBrokerListenerName} is the only listener, so it is also the inter-broker listener: anyone who reaches it can send controller and replica requests. Give brokers a separate inter-broker listener (inter.broker.listener.name) or configure an authorizer.`,
      );
    }

    await this.#registerBroker();
    this.session.onNewSession(async () => {
      this.log.warn('new ZooKeeper session: registering again');
      await this.#registerBroker();
      this.controller.onNewZkSession();
      this.configChangeListener.onNewSession();
      this.authorizer?.onNewSession();
      await this.scramCredentials.load(this.zk);
    });
    this.session.on('sessionLost', () => this.controller.onZkSessionLost());
    this.session.on('expired', () => this.controller.onZkSessionLost());
    this.controller.startup();
    // Serve clients once the controller has told us who is alive (bounded: a missing controller is not fatal).
    const known = await this.metadataCache.waitFor(() => this.#knowsItsRole(), cfg.zookeeperSessionTimeoutMs * 2);
    if (!known) this.log.warn('no UpdateMetadata/LeaderAndIsr from a controller yet; serving with what is known');
    this.apis.startServingClients();

    this.#hwCheckpointTimer = setInterval(() => this.#checkpointHighWatermarksInBackground(), cfg.replicaHighWatermarkCheckpointIntervalMs);
    this.#hwCheckpointTimer.unref();
    this.state = 'RunningAsBroker';
    this.log.info({ endpoints: this.advertisedEndpoints(), clusterId: this.clusterId }, 'started');
  }

  /** The controller told us who is alive, and we applied leadership for every partition we lead. */
  #knowsItsRole(): boolean {
    const cache = this.metadataCache;
    if (!cache.isBrokerAlive(this.config.brokerId)) return false;
    for (const topic of cache.allTopics()) {
      for (const p of cache.partitions(topic)) {
        if (p.leader === this.config.brokerId && !this.replicaManager.getPartition(topic, p.partition)?.isLeader) return false;
      }
    }
    return true;
  }

  #services(): BrokerServices {
    const self = this;
    return {
      brokerId: this.config.brokerId,
      config: this.config,
      log: this.log,
      get metadataCache() {
        return self.metadataCache;
      },
      get replicaManager() {
        return self.replicaManager;
      },
      get fetchManager() {
        return self.fetchManager;
      },
      readPool: this.readPool,
      get controller() {
        return self.controller;
      },
      get adminManager() {
        return self.adminManager;
      },
      get topicConfigs() {
        return self.topicConfigs;
      },
      get configAdmin() {
        return self.configAdmin;
      },
      get groupCoordinator() {
        return self.groupCoordinator; // group coordinator
      },
      get auth() {
        return self.auth;
      },
      fetchCapped: (replica: boolean) => {
        const limit = replica ? 'replica.fetch.response.max.bytes' : 'fetch.max.bytes';
        this.#fetchCaps[limit]++;
        this.log.debug({ limit }, `fetch max_bytes capped by ${limit}`);
      },
      get producerIdManager() {
        return self.producerIdManager;
      },
      supportedApis: () => this.apis.supportedApis(),
    };
  }

  /** Advertised endpoints with the real ports (a listener on port 0 gets one from the OS). */
  advertisedEndpoints(): Endpoint[] {
    return this.config.advertisedListeners.map((a) => ({
      ...a,
      port: a.port === 0 ? this.socketServer.boundPort(a.listenerName) : a.port,
    }));
  }

  boundPort(listenerName = this.config.listeners[0]!.listenerName): number {
    return this.socketServer.boundPort(listenerName);
  }

  /**
   * Where the other brokers' admin servers reach this one's (`http.host`:`http.port`; a wildcard host
   * is replaced by the inter-broker listener's advertised host). Null without an HTTP admin, or with an
   * OS-chosen port (0), which is not known before the admin server starts.
   */
  adminUrl(): string | null {
    const { httpHost, httpPort } = this.config;
    if (httpPort <= 0) return null;
    const wildcard = httpHost === '' || httpHost === '0.0.0.0' || httpHost === '::' || httpHost === '[::]';
    const advertised = this.advertisedEndpoints().find((e) => e.listenerName === this.config.interBrokerListenerName) ?? this.advertisedEndpoints()[0];
    const host = wildcard ? (advertised?.host ?? '127.0.0.1') : httpHost;
    return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${httpPort}`;
  }

  async #registerBroker(): Promise<void> {
    this.brokerEpoch = await this.zk.registerBroker({
      brokerId: this.config.brokerId,
      endpoints: this.advertisedEndpoints().map((e) => ({ listener: e.listenerName, host: e.host, port: e.port, securityProtocol: e.securityProtocol })),
      jmxPort: -1,
      rack: this.config.rack,
      adminUrl: this.adminUrl(),
    });
    this.log.info({ brokerEpoch: String(this.brokerEpoch) }, 'registered in ZooKeeper');
  }

  #checkpointHighWatermarks(): void {
    try {
      this.logManager.checkpointHighWatermarks();
    } catch (err) {
      this.log.error({ err }, 'high watermark checkpoint failed');
    }
  }

  /** The periodic checkpoint: fsync off the event loop so requests never wait for the disk. */
  #checkpointHighWatermarksInBackground(): void {
    this.logManager.checkpointHighWatermarksAsync().catch((err) => this.log.error({ err }, 'high watermark checkpoint failed'));
  }

  /** Clean stop: controlled shutdown first (leadership moves away), then every component in reverse order. Idempotent. */
  shutdown(): Promise<void> {
    if (!this.#shutdown) this.#shutdown = this.#doShutdown();
    return this.#shutdown;
  }

  async #doShutdown(): Promise<void> {
    if (this.state === 'NotRunning') return;
    const started = Date.now();
    if (this.config.controlledShutdownEnable && this.state === 'RunningAsBroker') {
      this.state = 'PendingControlledShutdown';
      try {
        await requestControlledShutdown(this);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'controlled shutdown failed; proceeding with an unclean leadership handover');
      }
    }
    this.state = 'ShuttingDown';
    clearInterval(this.#hwCheckpointTimer);
    await this.socketServer?.stop();
    await this.configChangeListener?.stop();
    await this.authorizer?.stop();
    this.groupCoordinator?.shutdown(); // group coordinator
    this.logCleaner?.shutdown(); // group coordinator (log compaction)
    this.logDirFailureHandler?.stop();
    await this.replicaManager?.shutdown();
    this.isrManager?.shutdown();
    await this.controller?.shutdown();
    // Let a periodic checkpoint still writing finish before the final ones.
    await this.logManager?.checkpointHighWatermarksAsync().catch(() => {});
    // Leader-epoch checkpoints are written in the background; the clean-shutdown marker needs them on disk.
    await this.logManager?.awaitLeaderEpochCheckpoints();
    try {
      this.#checkpointHighWatermarks();
      this.logManager?.shutdown();
    } catch (err) {
      this.log.error({ err }, 'log manager shutdown failed');
    }
    await this.session?.close();
    this.state = 'NotRunning';
    this.log.info({ tookMs: Date.now() - started }, 'shut down');
  }
}

