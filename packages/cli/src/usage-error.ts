/** A mistake on the command line: the CLI prints it with the usage and exits with 2. */
export class UsageError extends Error {
  readonly usage: string | undefined;

  constructor(message: string, usage?: string) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}

/** node:util parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes for unknown or malformed options. */
export function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && (error as NodeJS.ErrnoException).code!.startsWith('ERR_PARSE_ARGS');
}
