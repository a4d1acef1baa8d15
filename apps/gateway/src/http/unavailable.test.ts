import { JobFailedError } from '@loupe/queue';
import { RollbackFailedError } from '@loupe/storage';
import { describe, expect, it } from 'vitest';
import { isBackendUnavailable } from './unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isBackendUnavailable', () => {
  it('recognises a backing server that cannot be reached, in the gateway or reported by a job', () => {
    expect(isBackendUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isBackendUnavailable(withCode('the database system is not yet accepting connections', '57P03'))).toBe(true);
    expect(isBackendUnavailable(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isBackendUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isBackendUnavailable(new JobFailedError('connect ECONNREFUSED 10.0.0.3:5432', 'ECONNREFUSED'))).toBe(true);
    // A transaction cut in its middle, whose ROLLBACK failed too, in the process and as a job reports it (message and code).
    const cut = new RollbackFailedError(new Error('Client was closed and is not queryable'), new Error('Client has encountered a connection error and is not queryable'));
    expect(isBackendUnavailable(cut)).toBe(true);
    expect(isBackendUnavailable(new JobFailedError(cut.message, cut.code))).toBe(true);
    expect(isBackendUnavailable(new Error('saving the row failed', { cause: withCode('the database system is in recovery mode', '57P03') }))).toBe(true);
  });

  it('leaves faults of Loupe itself and query errors to the 500 answer', () => {
    expect(isBackendUnavailable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isBackendUnavailable(withCode('relation "images" does not exist', '42P01'))).toBe(false);
    expect(isBackendUnavailable(new JobFailedError('the job was lost from the queue', 'JOB_LOST'))).toBe(false);
    expect(isBackendUnavailable('ECONNREFUSED')).toBe(false);
  });
});
