import { ErrorCode } from '@gregor/common';
import { ApiKey } from '@gregor/protocol';
import type { KafkaApis } from '../../kafka-apis.js';
import type { AuthHelper } from '../auth-helper.js';

const GROUP_DENIED: number = ErrorCode.GROUP_AUTHORIZATION_FAILED;
const TOPIC_DENIED: number = ErrorCode.TOPIC_AUTHORIZATION_FAILED;

/** With an authorizer: the group APIs check Group operations (and Topic ones for offsets), as Kafka 2.4's KafkaApis. */
export function installGroupAuthorization(apis: KafkaApis, auth: AuthHelper): void {
  apis.wrap(ApiKey.FindCoordinator, (inner) => (req, ctx) => {
    const keyType = req.keyType ?? 0;
    if (keyType === 0 && !auth.authorize(ctx, 'Describe', 'Group', req.key)) return { throttleTimeMs: 0, errorCode: GROUP_DENIED, errorMessage: null, nodeId: -1, host: '', port: -1 };
    if (keyType === 1 && !auth.authorize(ctx, 'Describe', 'TransactionalId', req.key)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, errorMessage: null, nodeId: -1, host: '', port: -1 };
    }
    return inner(req, ctx);
  });

  apis.wrap(ApiKey.JoinGroup, (inner) => (req, ctx) =>
    auth.authorize(ctx, 'Read', 'Group', req.groupId)
      ? inner(req, ctx)
      : { throttleTimeMs: 0, errorCode: GROUP_DENIED, generationId: -1, protocolName: '', leader: '', memberId: req.memberId, members: [] },
  );
  apis.wrap(ApiKey.SyncGroup, (inner) => (req, ctx) =>
    auth.authorize(ctx, 'Read', 'Group', req.groupId) ? inner(req, ctx) : { throttleTimeMs: 0, errorCode: GROUP_DENIED, assignment: Buffer.alloc(0) },
  );
  apis.wrap(ApiKey.Heartbeat, (inner) => (req, ctx) => (auth.authorize(ctx, 'Read', 'Group', req.groupId) ? inner(req, ctx) : { throttleTimeMs: 0, errorCode: GROUP_DENIED }));
  apis.wrap(ApiKey.LeaveGroup, (inner) => (req, ctx) =>
    auth.authorize(ctx, 'Read', 'Group', req.groupId) ? inner(req, ctx) : { throttleTimeMs: 0, errorCode: GROUP_DENIED, members: [] },
  );

  apis.wrap(ApiKey.DescribeGroups, (inner) => async (req, ctx) => {
    const allowed = auth.filterAuthorized(ctx, 'Describe', 'Group', req.groups);
    const denied = req.groups.filter((g) => !allowed.has(g));
    if (denied.length === 0) return inner(req, ctx);
    const groups = req.groups.filter((g) => allowed.has(g));
    const res = groups.length > 0 ? await inner({ ...req, groups }, ctx) : { throttleTimeMs: 0, groups: [] };
    const deniedGroups = denied.map((groupId) => ({ errorCode: GROUP_DENIED, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: -2147483648 }));
    return res && { ...res, groups: [...res.groups, ...deniedGroups] };
  });

  // Cluster Describe lists every group; otherwise only the groups the principal may Describe.
  apis.wrap(ApiKey.ListGroups, (inner) => async (req, ctx) => {
    const res = await inner(req, ctx);
    if (!res || auth.authorizeCluster(ctx, 'Describe', false)) return res;
    return { ...res, groups: res.groups.filter((g) => auth.authorize(ctx, 'Describe', 'Group', g.groupId, false)) };
  });

  apis.wrap(ApiKey.DeleteGroups, (inner) => async (req, ctx) => {
    const allowed = auth.filterAuthorized(ctx, 'Delete', 'Group', req.groupsNames);
    const denied = req.groupsNames.filter((g) => !allowed.has(g));
    if (denied.length === 0) return inner(req, ctx);
    const groupsNames = req.groupsNames.filter((g) => allowed.has(g));
    const res = groupsNames.length > 0 ? await inner({ ...req, groupsNames }, ctx) : { throttleTimeMs: 0, results: [] };
    return res && { ...res, results: [...res.results, ...denied.map((groupId) => ({ groupId, errorCode: GROUP_DENIED }))] };
  });

  apis.wrap(ApiKey.OffsetCommit, (inner) => async (req, ctx) => {
    if (!auth.authorize(ctx, 'Read', 'Group', req.groupId)) {
      return { throttleTimeMs: 0, topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: GROUP_DENIED })) })) };
    }
    const allowed = auth.filterAuthorized(ctx, 'Read', 'Topic', req.topics.map((t) => t.name));
    const denied = req.topics.filter((t) => !allowed.has(t.name));
    if (denied.length === 0) return inner(req, ctx);
    const topics = req.topics.filter((t) => allowed.has(t.name));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { throttleTimeMs: 0, topics: [] };
    return res && { ...res, topics: [...res.topics, ...denied.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: TOPIC_DENIED })) }))] };
  });

  apis.wrap(ApiKey.OffsetFetch, (inner) => async (req, ctx) => {
    if (!auth.authorize(ctx, 'Describe', 'Group', req.groupId)) {
      // v2+ carry a top-level error; older versions see it on every partition asked for.
      const topics = (req.topics ?? []).map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: GROUP_DENIED })) }));
      return { throttleTimeMs: 0, topics, errorCode: GROUP_DENIED };
    }
    if (req.topics === null) {
      // All committed offsets: topics the principal may not Describe are left out.
      const res = await inner(req, ctx);
      return res && { ...res, topics: res.topics.filter((t) => auth.authorize(ctx, 'Describe', 'Topic', t.name, false)) };
    }
    const allowed = auth.filterAuthorized(ctx, 'Describe', 'Topic', req.topics.map((t) => t.name));
    const denied = req.topics.filter((t) => !allowed.has(t.name));
    if (denied.length === 0) return inner(req, ctx);
    const topics = req.topics.filter((t) => allowed.has(t.name));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE };
    const deniedTopics = denied.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: TOPIC_DENIED })) }));
    return res && { ...res, topics: [...res.topics, ...deniedTopics] };
  });

  apis.wrap(ApiKey.OffsetDelete, (inner) => async (req, ctx) => {
    if (!auth.authorize(ctx, 'Delete', 'Group', req.groupId)) return { errorCode: GROUP_DENIED, throttleTimeMs: 0, topics: [] };
    const allowed = auth.filterAuthorized(ctx, 'Read', 'Topic', req.topics.map((t) => t.name));
    const denied = req.topics.filter((t) => !allowed.has(t.name));
    if (denied.length === 0) return inner(req, ctx);
    const topics = req.topics.filter((t) => allowed.has(t.name));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: [] };
    return res && { ...res, topics: [...res.topics, ...denied.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: TOPIC_DENIED })) }))] };
  });
}
