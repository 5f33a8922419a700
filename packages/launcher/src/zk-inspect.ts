// The cluster view lives behind the ZooKeeper boundary (only packages/zookeeper talks to ZooKeeper).
export { readZkClusterView, type ZkClusterView } from '@gregor/zookeeper';
