#!/usr/bin/env node
import { runCli } from './run-cli.js';

// Exit explicitly: sockets or timers a command leaves behind must not keep the CLI alive.
process.exit(await runCli(process.argv.slice(2)));
