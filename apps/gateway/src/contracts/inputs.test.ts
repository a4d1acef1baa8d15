import { Params } from '@loupe/envelope';
import { describe, expect, it } from 'vitest';
import { readInput } from './contract';
import { COMMON, paths, refuseBadPath } from './inputs';
import { CONTRACTS } from './operations';

describe('paths to look up are checked as add checks them', () => {
  const read = (pairs: Array<[string, string]>) => readInput({ filepaths: paths('to read') }, new Params(pairs)).filepaths;

  it('refuses an over-long path quoting its start, and one with control characters (a NUL byte failed in Postgres)', () => {
    expect(() => read([['filepaths[0]', 'x'.repeat(100_000)]])).toThrow(`${'x'.repeat(60)}…: filepath is longer than 1024 characters.`);
    expect(() => read([['filepath', 'a\u0001b']])).toThrow('"a\\u0001b": filepath contains control characters.');
    expect(() => read([['filepath', 'a\u0000b']])).toThrow('filepath: the value contains a NUL character (\\u0000), which no parameter accepts.');
    expect(() => refuseBadPath('a\u0000b')).toThrow(/control characters/);
  });

  it('keeps ordinary paths, in order', () => {
    expect(read([['filepaths[1]', 'b/2.jpg'], ['filepaths[0]', 'a/1.jpg']])).toEqual(['a/1.jpg', 'b/2.jpg']);
  });
});

describe('a request with several problems is refused for the first its operation reads', () => {
  const search = CONTRACTS.mobile.search.params;

  it('names limit before the missing query image, as the search always has', () => {
    expect(() => readInput(search, new Params([['limit', 'ten']]))).toThrow('limit: "ten" is not an integer.');
    expect(() => readInput(search, new Params([]))).toThrow('Please specify a query image: image, filepath or url.');
  });

  it('reads a search into its typed request with the declared defaults', () => {
    const input = readInput(search, new Params([['filepath', 'a/b.jpg'], ['check_horizontal_flip', 'True']]));
    expect(input).toEqual({
      min_score: 0, check_horizontal_flip: true, generate_overlay: false, offset: 0, limit: 10, name_filter: undefined, path_filter: undefined,
      query: { filepath: 'a/b.jpg' },
    });
  });

  it('keeps the common parameters read before a refusal, so the refusal is answered in the asked format', () => {
    const common: Record<string, unknown> = {};
    expect(() => readInput(COMMON, new Params([['callback', 'cb'], ['format', 'xml'], ['timeout', '-1']]), common)).toThrow('timeout: -1 is below the minimum of 0.');
    expect(common).toEqual({ callback: 'cb', format: 'xml' });
  });
});
