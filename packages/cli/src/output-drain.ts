import { whenAborted } from '@gregor/common';

/** Resolves once `output` has drained its buffer (back-pressure from a slow pipe), or `signal` aborts. */
export function drained(output: NodeJS.WritableStream, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let stopWatching = (): void => undefined;
    const done = (): void => {
      output.removeListener('drain', done);
      stopWatching();
      resolve();
    };
    output.once('drain', done);
    stopWatching = whenAborted(signal, done);
  });
}
