export { buildAdminApp, startAdminServer, type AdminAppOptions, type AdminServerOptions, type AdminServer } from './admin-server.js';
export { ADMIN_ERRORS, AdminError, adminCodeForKafka, type AdminErrorCode, type ErrorBody } from './errors.js';
export type { TopicDescription, PartitionDescription, TopicSummary } from './topic-view.js';
