import { Params } from '@loupe/envelope';
import { describe, expect, it } from 'vitest';
import { readInput } from './contract';
import { paths, refuseBadPath } from './inputs';

describe('paths to look up are checked as add checks them', () => {
  const read = (pairs: Array<[string, string]>) => readInput({ filepaths: paths('to read') }, new Params(pairs)).filepaths;

  it('refuses an over-long path quoting its start, and one with control characters (a NUL byte failed in Postgres)', () => {
    expect(() => read([['filepaths[0]', 'x'.repeat(100_000)]])).toThrow(`${'x'.repeat(60)}…: filepath is longer than 1024 characters.`);
    expect(() => read([['filepath', 'a\u0000b']])).toThrow('"a\\u0000b": filepath contains control characters.');
    expect(() => refuseBadPath('a\u0000b')).toThrow(/control characters/);
  });

  it('keeps ordinary paths, in order', () => {
    expect(read([['filepaths[1]', 'b/2.jpg'], ['filepaths[0]', 'a/1.jpg']])).toEqual(['a/1.jpg', 'b/2.jpg']);
  });
});
