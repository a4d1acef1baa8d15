import { describe, expect, it } from 'vitest';
import { ParamError } from './errors';
import { MAX_INT, Params, parseKey } from './params';

describe('parameter keys', () => {
  it('understands indexed, percent-encoded, appended and plain keys', () => {
    expect(parseKey('filepaths[2]')).toEqual({ base: 'filepaths', index: 2 });
    expect(parseKey('filepaths%5B1%5D')).toEqual({ base: 'filepaths', index: 1 });
    expect(parseKey('colors[]')).toEqual({ base: 'colors', index: 'append' });
    expect(parseKey('url')).toEqual({ base: 'url' });
  });
});

describe('Params', () => {
  it('orders indexed values by index whatever the arrival order, then appended ones', () => {
    const p = new Params([['filepaths[1]', 'b'], ['filepaths%5B0%5D', 'a'], ['filepaths[]', 'c']]);
    expect(p.list('filepaths')).toEqual(['a', 'b', 'c']);
  });

  it('treats the single-item alias as a list entry', () => {
    expect(new Params([['filepath', 'x.jpg']]).list('filepaths', 'filepath')).toEqual(['x.jpg']);
  });

  it('keeps positions of parallel lists with gaps', () => {
    const p = new Params([['image_ids[2]', 'z'], ['image_ids[0]', 'x']]);
    expect([...p.indexed('image_ids').entries()]).toEqual([[0, 'x'], [2, 'z']]);
  });

  it.each([
    ['true', true], ['True', true], ['1', true], ['false', false], ['False', false], ['0', false],
  ])('reads the boolean %s as %s', (raw, expected) => {
    expect(new Params([['generate_overlay', raw]]).bool('generate_overlay')).toBe(expected);
  });

  it('refuses a word that is not a boolean, naming the parameter', () => {
    expect(() => new Params([['generate_overlay', 'yes']]).bool('generate_overlay')).toThrow(/generate_overlay: "yes" is not a boolean/);
  });

  it('validates integers and ranges with messages that name the parameter', () => {
    expect(new Params([]).int('limit', { default: 10 })).toBe(10);
    expect(new Params([['limit', ' 5 ']]).int('limit', { min: 0 })).toBe(5);
    expect(() => new Params([['limit', '5.5']]).int('limit')).toThrow(/limit: "5.5" is not an integer/);
    expect(() => new Params([['offset', '-1']]).int('offset', { min: 0 })).toThrow(ParamError);
    expect(() => new Params([['min_score', '101']]).number('min_score', { min: 0, max: 100 })).toThrow(/above the maximum of 100/);
  });

  it('bounds every integer to a range SQL and JavaScript hold exactly, and says which range', () => {
    expect(() => new Params([['offset', '100000000000000000000']]).int('offset', { default: 0, min: 0 })).toThrow(
      new ParamError('offset: "100000000000000000000" is not an integer from 0 to 2147483647.'),
    );
    expect(() => new Params([['limit', '9223372036854775808']]).int('limit', { min: 0 })).toThrow(/limit: "9223372036854775808" is not an integer from 0 to 2147483647\./);
    expect(() => new Params([['n', '-2147483649']]).int('n')).toThrow(/n: "-2147483649" is not an integer from -2147483648 to 2147483647\./);
    expect(() => new Params([['offset', '-1']]).int('offset', { min: 0 })).toThrow(/offset: "-1" is not an integer from 0 to 2147483647\./);
    expect(() => new Params([['limit', '11']]).int('limit', { min: 1, max: 10 })).toThrow(/limit: "11" is not an integer from 1 to 10\./);
    expect(new Params([['offset', String(MAX_INT)]]).int('offset', { min: 0 })).toBe(MAX_INT);
    expect(new Params([['offset', '+007']]).int('offset', { min: 0 })).toBe(7);
  });

  it('refuses a single-value parameter sent twice with different values, naming it', () => {
    expect(() => new Params([['filepath', 'a.jpg'], ['filepath', 'b.jpg']]).string('filepath')).toThrow(
      new ParamError('filepath: this parameter was sent 2 times with different values; send it once.'),
    );
    expect(() => new Params([['url[0]', 'http://a/'], ['url[1]', 'http://b/']]).string('url')).toThrow(/^url: this parameter was sent 2 times/);
    expect(() => new Params([['limit', '1'], ['limit', '2']]).int('limit')).toThrow(/^limit: this parameter was sent 2 times/);
    // The same value twice (query string and body) and empty values (absent) are not a conflict.
    expect(new Params([['format', 'xml'], ['format', 'xml']]).string('format')).toBe('xml');
    expect(new Params([['filepath', ''], ['filepath', 'b.jpg']]).string('filepath')).toBe('b.jpg');
    // The plain key still wins over an indexed one, and lists keep every entry.
    expect(new Params([['filepath[0]', 'x.jpg'], ['filepath', 'a.jpg']]).string('filepath')).toBe('a.jpg');
    const lists = new Params([['filepaths[0]', 'a'], ['filepaths[1]', 'b'], ['colors[]', 'red'], ['colors[]', 'blue'], ['filepath', 'c'], ['filepath', 'd']]);
    expect(lists.list('filepaths')).toEqual(['a', 'b']);
    expect(lists.list('colors')).toEqual(['red', 'blue']);
    expect(lists.list('filepaths', 'filepath')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reads a single-file parameter and refuses two files under its name', () => {
    const f = (field: string, filename: string) => ({ field, filename, data: Buffer.from('x') });
    expect(new Params([], [f('image', 'a.jpg'), f('images[0]', 'b.jpg')]).file('image')?.filename).toBe('a.jpg');
    expect(new Params([], []).file('image')).toBeUndefined();
    expect(() => new Params([], [f('image', 'a.jpg'), f('image', 'b.jpg')]).file('image')).toThrow(
      new ParamError('image: 2 files were sent under this name; send one.'),
    );
    expect(() => new Params([], [f('image_upload', 'a.jpg'), f('image_upload[0]', 'b.jpg')]).file('image_upload')).toThrow(/^image_upload: 2 files/);
  });

  it('limits string length', () => {
    expect(() => new Params([['image_id', 'x'.repeat(256)]]).string('image_id', { maxLength: 255 })).toThrow(/longer than 255/);
  });

  it('refuses a NUL character in any value it hands out, naming the parameter, since Postgres cannot store one', () => {
    const params = new Params([['image_id[0]', '\u0000'], ['filepaths[1]', 'a\u0000b'], ['keyword', 'x\u0000']]);
    expect(() => params.string('image_id')).toThrow(/^image_id: the value contains a NUL character \(\\u0000\)/);
    expect(() => params.list('filepaths')).toThrow(/^filepaths: .*NUL/);
    expect(() => params.indexed('image_id')).toThrow(/^image_id: .*NUL/);
    expect(() => params.bool('keyword')).toThrow(/NUL/);
    expect(new Params([['keyword', 'x\u0001']]).string('keyword')).toBe('x\u0001');
  });

  it('collects files under indexed names and the single alias', () => {
    const f = (field: string) => ({ field, filename: `${field}.jpg`, data: Buffer.from('x') });
    const p = new Params([], [f('images[1]'), f('images[0]'), f('image')]);
    expect(p.files('images', 'image').map((x) => x.field)).toEqual(['images[0]', 'images[1]', 'image']);
  });
});
