import { get } from '../api.js';
import { badge, card, fill, h, table } from '../dom.js';
import { formatNumber } from '../format.js';
import { errorAlert, topicLink, type PageContext } from '../page.js';
import type { Brokers, Cluster, Controller, PartitionHealth, PartitionsHealth, ZooKeeperStatus } from '../types.js';

const REFRESH_MS = 5000;

/** Brokers, the controller, the ZooKeeper ensemble, and the partitions that need attention. */
export async function overviewPage(root: HTMLElement, ctx: PageContext): Promise<void> {
  const body = h('div');
  fill(root, h('h1', null, 'Overview'), body);
  const load = async () => {
    const [cluster, brokers, controller, zk, urp, offline] = await Promise.allSettled([
      get<Cluster>('/v1/cluster', ctx.signal),
      get<Brokers>('/v1/brokers', ctx.signal),
      get<Controller>('/v1/controller', ctx.signal),
      get<ZooKeeperStatus>('/v1/zookeeper', ctx.signal),
      get<PartitionsHealth>('/v1/partitions?only=under-replicated', ctx.signal),
      get<PartitionsHealth>('/v1/partitions?only=offline', ctx.signal),
    ]);
    if (ctx.signal.aborted) return;
    const value = <T>(r: PromiseSettledResult<T>) => (r.status === 'fulfilled' ? r.value : null);
    const failed = [cluster, brokers, controller, zk, urp, offline].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    const c = value(cluster);
    const b = value(brokers);
    const ctl = value(controller);
    const z = value(zk);
    const u = value(urp);
    const o = value(offline);
    const endpointOf = (id: number) => c?.brokers.find((x) => x.id === id);
    fill(
      body,
      failed.map((f) => errorAlert(f.reason)),
      h(
        'div',
        { class: 'cards' },
        card('Brokers', b ? b.brokers.length : '–', '', 'card-brokers'),
        card('Controller', ctl?.controllerId ?? 'none', ctl && ctl.controllerId === null ? 'bad' : '', 'card-controller'),
        card('Partitions', u ? formatNumber(u.total) : '–', '', 'card-partitions'),
        card('Under-replicated', u ? u.underReplicated : '–', u && u.underReplicated > 0 ? 'warn' : 'ok', 'card-urp'),
        card('Offline', o ? o.offline : '–', o && o.offline > 0 ? 'bad' : 'ok', 'card-offline'),
        card('ZooKeeper', z ? `${z.serving}/${z.servers.length}` : '–', z ? (z.quorum === 'lost' ? 'bad' : z.serving < z.servers.length ? 'warn' : 'ok') : '', 'card-zookeeper'),
      ),
      h('h2', null, 'Brokers', c?.clusterId ? h('span', { class: 'sub' }, `cluster ${c.clusterId}`) : null),
      b
        ? table('brokers', [
            { title: 'Id', cell: (x) => x.id, num: true },
            { title: 'Address', cell: (x) => { const e = endpointOf(x.id); return e ? h('span', { class: 'mono' }, `${e.host}:${e.port}`) : '–'; } },
            { title: 'Listeners', cell: (x) => x.endpoints.map((e) => `${e.listenerName}://${e.host}:${e.port}`).join(', ') },
            { title: 'Rack', cell: (x) => x.rack ?? '–' },
            { title: 'Role', cell: (x) => (x.isController ? badge('controller', 'info') : '') },
            { title: 'Leaders', cell: (x) => x.leaderPartitions, num: true },
            { title: 'Replicas', cell: (x) => x.replicaPartitions, num: true },
          ], b.brokers.slice().sort((x, y) => x.id - y.id))
        : null,
      h('h2', null, 'Controller'),
      ctl
        ? h(
            'dl',
            { class: 'kv panel', 'data-testid': 'controller' },
            h('dt', null, 'Active controller'), h('dd', { 'data-testid': 'controller-id' }, ctl.controllerId === null ? badge('none', 'bad') : `broker ${ctl.controllerId}`),
            h('dt', null, 'Controller epoch'), h('dd', null, ctl.controllerEpoch ?? '–'),
            h('dt', null, 'This broker\'s metadata says'), h('dd', null, `broker ${ctl.metadataControllerId}`),
            h('dt', null, 'Console served by the controller'), h('dd', null, ctl.thisBrokerIsController ? 'yes' : 'no'),
          )
        : null,
      h('h2', null, 'ZooKeeper ensemble', z ? h('span', { class: 'sub mono' }, z.connectString) : null),
      z
        ? [
            h(
              'div',
              { class: 'toolbar' },
              badge(z.quorum === 'lost' ? 'quorum lost' : z.quorum === 'standalone' ? 'standalone' : 'quorum', z.quorum === 'lost' ? 'bad' : 'ok'),
              badge(z.sessionHealthy ? 'broker session healthy' : 'broker session unhealthy', z.sessionHealthy ? 'ok' : 'bad'),
            ),
            table('zookeeper', [
              { title: 'Server', cell: (x) => h('span', { class: 'mono' }, `${x.host}:${x.port}`) },
              { title: 'Mode', cell: (x) => (x.mode ? badge(x.mode, x.mode === 'leader' || x.mode === 'standalone' ? 'info' : 'ok') : badge('down', 'bad')) },
              { title: 'Version', cell: (x) => x.version?.split('-')[0] ?? '–' },
              { title: 'Connections', cell: (x) => x.connections ?? '–', num: true },
              { title: 'Outstanding', cell: (x) => x.outstanding ?? '–', num: true },
              { title: 'Latency avg/max ms', cell: (x) => (x.latencyAvgMs === null ? '–' : `${x.latencyAvgMs.toFixed(1)} / ${x.latencyMaxMs ?? '–'}`), num: true },
              { title: 'Znodes', cell: (x) => x.nodeCount ?? '–', num: true },
              { title: 'Zxid', cell: (x) => h('span', { class: 'mono' }, x.zxid ?? '–') },
              { title: 'Problem', cell: (x) => x.error ?? '' },
            ], z.servers),
          ]
        : null,
      h('h2', null, 'Under-replicated partitions'),
      u ? partitionTable('under-replicated', u.partitions, 'urp') : null,
      h('h2', null, 'Offline partitions'),
      o ? partitionTable('offline', o.partitions, 'offline') : null,
    );
  };
  await load();
  ctx.every(REFRESH_MS, load);
}

function partitionTable(testId: string, rows: PartitionHealth[], rowClass: string): HTMLTableElement {
  return table(
    testId,
    [
      { title: 'Topic', cell: (p) => topicLink(p.topic) },
      { title: 'Partition', cell: (p) => p.partition, num: true },
      { title: 'Leader', cell: (p) => (p.leader < 0 ? badge('none', 'bad') : p.leader), num: true },
      { title: 'Replicas', cell: (p) => p.replicas.join(', ') },
      { title: 'ISR', cell: (p) => p.isr.join(', ') },
      { title: 'Out of sync', cell: (p) => p.replicas.filter((r) => !p.isr.includes(r)).join(', ') || '–' },
      { title: 'Offline replicas', cell: (p) => p.offlineReplicas.join(', ') || '–' },
    ],
    rows,
    { rowClass: () => rowClass, empty: 'None' },
  );
}
