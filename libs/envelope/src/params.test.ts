import { describe, expect, it } from 'vitest';
import { ParamError } from './errors';
import { Params, parseKey } from './params';

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

  it('limits string length', () => {
    expect(() => new Params([['image_id', 'x'.repeat(256)]]).string('image_id', { maxLength: 255 })).toThrow(/longer than 255/);
  });

  it('collects files under indexed names and the single alias', () => {
    const f = (field: string) => ({ field, filename: `${field}.jpg`, data: Buffer.from('x') });
    const p = new Params([], [f('images[1]'), f('images[0]'), f('image')]);
    expect(p.files('images', 'image').map((x) => x.field)).toEqual(['images[0]', 'images[1]', 'image']);
  });
});
