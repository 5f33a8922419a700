export { runCli, mainUsage } from './run-cli.js';
export { UsageError } from './usage-error.js';
export { formatStatus } from './commands/cluster.js';
export { formatRecord } from './commands/consume.js';
export { describeTopic } from './commands/topics.js';
export { gregorCommand } from './gregor-command.js';
