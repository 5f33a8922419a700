import { pino, destination, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * Structured logs to stderr, so that CLI output on stdout stays clean for pipes. The level comes
 * from the `level` option, else LOG_LEVEL, else info. JSON lines, except on a terminal, where
 * people read them: there pino-pretty prints one coloured line each. LOG_FORMAT=json|pretty forces one.
 */
export function createLogger(name: string, options: { level?: string; bindings?: Record<string, unknown> } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  if (!LEVELS.has(level)) throw new Error(`LOG_LEVEL must be one of ${[...LEVELS].join(', ')}, got "${level}"`);
  const opts: LoggerOptions = { name, level, base: { pid: process.pid, ...options.bindings } };
  return pino(opts, logDestination(process.env.LOG_FORMAT, process.stderr.isTTY === true));
}

function logDestination(format: string | undefined, isTerminal: boolean): DestinationStream {
  if (format !== undefined && format !== 'json' && format !== 'pretty') throw new Error(`LOG_FORMAT must be json or pretty, got "${format}"`);
  if (format === 'pretty' || (format === undefined && isTerminal)) {
    return pretty({ destination: 2, sync: true, colorize: isTerminal, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  }
  return destination({ fd: 2, sync: false });
}

/** A logger that discards everything (tests, libraries used without logging). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
