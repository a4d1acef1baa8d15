import { JobFailedError, QueueErrorCode } from '@loupe/queue';
import { describe, expect, it } from 'vitest';
import { internalErrorDetail } from './envelopes';

describe('internalErrorDetail', () => {
  it('keeps driver and library texts, which name internal hosts and ports, out of the answer', () => {
    const fromWorker = new JobFailedError('connect ECONNREFUSED 10.0.3.7:5432', 'ECONNREFUSED');
    expect(internalErrorDetail(fromWorker)).toBe('An internal error occurred; it has been logged.');
    expect(internalErrorDetail(new JobFailedError('relation "images" does not exist'))).toBe('An internal error occurred; it has been logged.');
    expect(internalErrorDetail(new Error('boom at 127.0.0.1:6379'))).toBe('An internal error occurred; it has been logged.');
  });

  it("shows the queue's own words, which tell the caller what happened to the job", () => {
    const lost = new JobFailedError('the job was lost from the queue', QueueErrorCode.JobLost);
    expect(internalErrorDetail(lost)).toBe('the job was lost from the queue');
  });
});
