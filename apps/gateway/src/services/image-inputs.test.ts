import { Params } from '@loupe/envelope';
import { describe, expect, it } from 'vitest';
import { CollectionService } from './collection.service';
import { refuseBadPath } from './image-inputs';

describe('paths to look up are checked as add checks them', () => {
  // requestedPaths reads parameters only; the service's repositories and queue are not reached.
  const collection = new CollectionService(null as never, null as never, null as never);

  it('refuses an over-long path quoting its start, and one with control characters (a NUL byte failed in Postgres)', () => {
    expect(() => collection.requestedPaths(new Params([['filepaths[0]', 'x'.repeat(100_000)]]))).toThrow(`${'x'.repeat(60)}…: filepath is longer than 1024 characters.`);
    expect(() => collection.requestedPaths(new Params([['filepath', 'a\u0000b']]))).toThrow('"a\\u0000b": filepath contains control characters.');
    expect(() => refuseBadPath('a\u0000b')).toThrow(/control characters/);
  });

  it('keeps ordinary paths, in order', () => {
    expect(collection.requestedPaths(new Params([['filepaths[1]', 'b/2.jpg'], ['filepaths[0]', 'a/1.jpg']]))).toEqual(['a/1.jpg', 'b/2.jpg']);
  });
});
