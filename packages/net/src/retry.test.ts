import { describe, expect, it } from 'vitest';
import { ErrorCode, GregorError, KafkaProtocolError } from '@gregor/common';
import { AbortError, retry } from './retry.js';

const fast = { retryBackoffMs: 1, retryBackoffMaxMs: 5 };

describe('retry', () => {
  it('retries retriable errors until the operation succeeds', async () => {
    const seen: number[] = [];
    const result = await retry(
      async (attempt) => {
        seen.push(attempt);
        if (attempt < 2) throw new KafkaProtocolError(ErrorCode.NOT_LEADER_FOR_PARTITION);
        return 'ok';
      },
      { ...fast, retries: 5 },
    );
    expect(result).toBe('ok');
    expect(seen).toEqual([0, 1, 2]);
  });

  it('stops at once on a non-retriable error', async () => {
    let calls = 0;
    const failing = retry(
      async () => {
        calls++;
        throw new KafkaProtocolError(ErrorCode.TOPIC_ALREADY_EXISTS);
      },
      { ...fast, retries: 5 },
    );
    await expect(failing).rejects.toMatchObject({ code: ErrorCode.TOPIC_ALREADY_EXISTS });
    expect(calls).toBe(1);
  });

  it('does not retry errors that are not GregorErrors', async () => {
    let calls = 0;
    await expect(retry(async () => { calls++; throw new TypeError('bug'); }, { ...fast, retries: 5 })).rejects.toBeInstanceOf(TypeError);
    expect(calls).toBe(1);
  });

  it('throws the last error once retries run out', async () => {
    let calls = 0;
    const failing = retry(
      async () => {
        calls++;
        throw new GregorError(ErrorCode.NETWORK_EXCEPTION, `attempt ${calls}`);
      },
      { ...fast, retries: 3 },
    );
    await expect(failing).rejects.toThrow('attempt 4');
    expect(calls).toBe(4);
  });

  it('gives up when the time budget would be exceeded', async () => {
    let calls = 0;
    const started = Date.now();
    const failing = retry(
      async () => {
        calls++;
        throw new GregorError(ErrorCode.LEADER_NOT_AVAILABLE);
      },
      { retries: 1000, retryBackoffMs: 20, retryBackoffMaxMs: 20, totalTimeoutMs: 100 },
    );
    await expect(failing).rejects.toMatchObject({ code: ErrorCode.LEADER_NOT_AVAILABLE });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBeLessThan(12);
  });

  it('stops when aborted during a backoff', async () => {
    const controller = new AbortController();
    let calls = 0;
    const failing = retry(
      async () => {
        calls++;
        if (calls === 1) setTimeout(() => controller.abort(), 10);
        throw new GregorError(ErrorCode.NETWORK_EXCEPTION);
      },
      { retries: 100, retryBackoffMs: 5000, retryBackoffMaxMs: 5000, signal: controller.signal },
    );
    await expect(failing).rejects.toBeInstanceOf(AbortError);
    expect(calls).toBe(1);
  });

  it('calls onRetry before each backoff', async () => {
    const retried: number[] = [];
    await retry(
      async (attempt) => {
        if (attempt < 2) throw new GregorError(ErrorCode.NOT_CONTROLLER);
      },
      { ...fast, retries: 3, onRetry: (_error, attempt) => void retried.push(attempt) },
    );
    expect(retried).toEqual([0, 1]);
  });
});
