import { readFileSync } from 'node:fs';
import { ErrorCode, GregorError } from '@gregor/common';
import { describe, expect, it } from 'vitest';
import { ADMIN_ERRORS, AdminError, adminCodeForKafka, errorBody, toAdminError } from './errors.js';

const docs = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

describe('admin error table', () => {
  it('docs/errors.md lists every code with its status, and no other code', () => {
    const rows = new Map([...docs.matchAll(/^\| `(GREGOR_ERR_[A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
    const table = new Map(Object.entries(ADMIN_ERRORS).map(([code, e]) => [code, e.status]));
    expect(rows).toEqual(table);
  });

  it('maps Kafka codes to their own entry, retriable ones to 503 and the rest to 500', () => {
    expect(adminCodeForKafka(ErrorCode.TOPIC_ALREADY_EXISTS)).toBe('GREGOR_ERR_TOPIC_EXISTS');
    expect(adminCodeForKafka(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)).toBe('GREGOR_ERR_UNKNOWN_TOPIC');
    expect(adminCodeForKafka(ErrorCode.INVALID_TOPIC_EXCEPTION)).toBe('GREGOR_ERR_INVALID_TOPIC');
    expect(adminCodeForKafka(ErrorCode.NOT_CONTROLLER)).toBe('GREGOR_ERR_UNAVAILABLE');
    expect(adminCodeForKafka(ErrorCode.CORRUPT_MESSAGE)).toBe('GREGOR_ERR_UNAVAILABLE');
    expect(adminCodeForKafka(ErrorCode.UNSUPPORTED_VERSION)).toBe('GREGOR_ERR_INTERNAL');
    expect(adminCodeForKafka(12345)).toBe('GREGOR_ERR_INTERNAL');
  });

  it('turns thrown values into error bodies with the Kafka code when there is one', () => {
    const fromBroker = toAdminError(new GregorError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor: 3 larger than available brokers: 1.'));
    expect(fromBroker.statusCode).toBe(400);
    expect(errorBody(fromBroker)).toEqual({
      error: { code: 'GREGOR_ERR_INVALID_REPLICATION_FACTOR', message: 'Replication factor: 3 larger than available brokers: 1.', kafkaErrorCode: 38 },
    });
    const plain = toAdminError(new TypeError('x is undefined'));
    expect(errorBody(plain)).toEqual({ error: { code: 'GREGOR_ERR_INTERNAL', message: 'x is undefined' } });
    expect(plain.statusCode).toBe(500);
    const tooLarge = toAdminError(Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }));
    expect([tooLarge.code, tooLarge.statusCode]).toEqual(['GREGOR_ERR_BODY_TOO_LARGE', 413]);
    const mine = new AdminError('GREGOR_ERR_FORBIDDEN', 'no');
    expect(toAdminError(mine)).toBe(mine);
  });

});
