import { Params } from '@loupe/envelope';
import { describe, expect, it } from 'vitest';
import { colorFormat, readColor, readColorQuery } from './color-inputs';
import { readInput } from './contract';

describe('color parameters quote a bad value short', () => {
  it('refuses a 100 kB color, weight or color_format with a message of a few dozen characters, not the value', () => {
    const huge = '1'.repeat(100_000);
    const refusals = [
      () => readColor('colors[0]', huge),
      () => readColorQuery(new Params([['colors[0]', '255,0,0'], ['weights[0]', huge]]), { allowWildcard: false }),
      () => readInput({ color_format: colorFormat }, new Params([['color_format', huge]])),
    ];
    for (const refuse of refusals) {
      expect(refuse).toThrow(/"1{64}…" \(100000 characters\)/);
      expect(() => refuse()).toThrow(expect.objectContaining({ message: expect.stringMatching(/^.{0,200}$/s) }));
    }
  });

  it('still reads colors with room to spare', () => {
    expect(readColor('colors[0]', ' 255 , 0 , 0 ').rgb).toEqual([255, 0, 0]);
    expect(readColor('colors[0]', '#00ff00').rgb).toEqual([0, 255, 0]);
  });
});
