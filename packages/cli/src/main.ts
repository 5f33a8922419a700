#!/usr/bin/env node
import { runCli } from './run-cli.js';

/** Resolves once everything written so far has left the process (pipe writes are asynchronous). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write('', () => resolve());
  });
}

const code = await runCli(process.argv.slice(2));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
// Exit explicitly: sockets or timers a command leaves behind must not keep the CLI alive.
process.exit(code);
