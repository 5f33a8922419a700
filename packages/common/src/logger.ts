import { pino, destination, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * Structured JSON logs. The level comes from the `level` option, else LOG_LEVEL, else info.
 * Logs go to stderr so that CLI output on stdout stays clean for pipes.
 */
export function createLogger(name: string, options: { level?: string; bindings?: Record<string, unknown> } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  if (!LEVELS.has(level)) throw new Error(`LOG_LEVEL must be one of ${[...LEVELS].join(', ')}, got "${level}"`);
  const opts: LoggerOptions = { name, level, base: { pid: process.pid, ...options.bindings } };
  return pino(opts, destination({ fd: 2, sync: false }));
}

/** A logger that discards everything (tests, libraries used without logging). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
