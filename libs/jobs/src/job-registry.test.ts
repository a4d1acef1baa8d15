import { createInProcessQueue } from '@loupe/queue';
import { describe, expect, it } from 'vitest';
import { ALL_JOB_KINDS, JobKind } from './contracts';
import { JOB_CLASSES, JOB_POLICY, jobClassOf, runJob } from './job-registry';
import { collectionCandidateKind } from './match/collection-index';
import { createProcessors } from './processors';
import { candidateKind } from './public-index/shard-sets';
import { openEmbeddedStore } from './testing/embedded-store';
import { ImageRepository, MatchIndexRepository } from '@loupe/storage';

describe('the job registry', () => {
  it('gives every job kind its admission class: the writes of a collection, and reads', () => {
    expect(Object.keys(JOB_CLASSES).sort()).toEqual([...ALL_JOB_KINDS].sort());
    const writes = ALL_JOB_KINDS.filter((kind) => JOB_POLICY.classOf(kind) === 'write').sort();
    expect(writes).toEqual([JobKind.ColorMetadata, JobKind.Delete, JobKind.Fingerprint, JobKind.Ingest].sort());
    expect(JOB_POLICY.limit('write')).toBe(1);
    expect(JOB_POLICY.limit('read')).toBe(4);
  });

  it("counts the shard owners' candidate kinds as reads, and refuses a name that is no kind instead of guessing", () => {
    expect(jobClassOf(candidateKind([0, 7]))).toBe('read');
    expect(jobClassOf(collectionCandidateKind([8, 15]))).toBe('read');
    // Operations, not job kinds: an add runs as `ingest`, an update too.
    for (const name of ['add', 'update', 'searh', '']) {
      expect(jobClassOf(name)).toBeUndefined();
      expect(() => JOB_POLICY.classOf(name)).toThrow(expect.objectContaining({ code: 'UNKNOWN_KIND' }));
    }
  });

  it('has a processor for every kind, and a queue refuses a kind the registry does not know even with a processor', async () => {
    const { db, blobs, close } = await openEmbeddedStore('job-registry');
    try {
      const processors = createProcessors({ images: new ImageRepository(db), blobs, matchIndex: new MatchIndexRepository(db), db });
      expect(Object.keys(processors).sort()).toEqual([...ALL_JOB_KINDS].sort());
      const queue = createInProcessQueue({ policy: JOB_POLICY, processors: { ...processors, add: async () => 'ran' } });
      await expect(queue.run({ kind: 'add', group: 'acme:match', payload: {} })).rejects.toMatchObject({ code: 'UNKNOWN_KIND' });
      const result = await runJob(queue, { kind: JobKind.Delete, group: 'acme', payload: { account_id: 1, service: 'match', filepaths: [] } });
      expect(result).toEqual({ deleted: [] });
      await queue.close();
    } finally {
      await close();
    }
  });
});
