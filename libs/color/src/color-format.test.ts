import { describe, expect, it } from 'vitest';
import { ColorParseError, formatColor, parseColor } from './color-format';

describe('color strings', () => {
  it('reads "r,g,b" with or without spaces as the rgb form', () => {
    expect(parseColor('31,78,156')).toEqual({ rgb: [31, 78, 156], form: 'rgb' });
    expect(parseColor(' 31 , 78,156 ')).toEqual({ rgb: [31, 78, 156], form: 'rgb' });
    expect(parseColor('0,0,255')).toEqual({ rgb: [0, 0, 255], form: 'rgb' });
  });

  it('reads six hex digits in any case, with or without #, as the hex form', () => {
    expect(parseColor('1f4e9c')).toEqual({ rgb: [31, 78, 156], form: 'hex' });
    expect(parseColor('#1F4E9C')).toEqual({ rgb: [31, 78, 156], form: 'hex' });
    expect(parseColor('FfFfFf')).toEqual({ rgb: [255, 255, 255], form: 'hex' });
  });

  it('writes rgb as a three-integer list and hex as six lower-case digits', () => {
    expect(formatColor([31, 78, 156], 'rgb')).toEqual([31, 78, 156]);
    expect(formatColor([31, 78, 156], 'hex')).toBe('1f4e9c');
    expect(formatColor([0, 10, 255], 'hex')).toBe('000aff');
  });

  it('round-trips every form it writes', () => {
    for (const rgb of [[0, 0, 0], [255, 255, 255], [1, 128, 254], [31, 78, 156]] as const) {
      expect(parseColor(formatColor(rgb, 'hex') as string)).toEqual({ rgb, form: 'hex' });
      expect(parseColor((formatColor(rgb, 'rgb') as number[]).join(','))).toEqual({ rgb, form: 'rgb' });
    }
  });

  it('names the bad string and the rule when a component is out of range', () => {
    expect(() => parseColor('12,300,4')).toThrow(
      new ColorParseError('Invalid color "12,300,4": each component must be an integer from 0 to 255.'),
    );
  });

  it.each(['12,300,4', '1.5,2,3', '-1,2,3', '1,,3', 'a,b,c', '1e2,0,0', '0x10,0,0'])(
    'rejects the component list "%s"',
    (bad) => {
      expect(() => parseColor(bad)).toThrow(ColorParseError);
      expect(() => parseColor(bad)).toThrow(`Invalid color "${bad}": each component must be an integer from 0 to 255.`);
    },
  );

  it.each(['', '1,2', '1,2,3,4', '12345', '#1234567', '12345g', 'blue', '##123456'])(
    'rejects "%s" as neither form, naming it',
    (bad) => {
      expect(() => parseColor(bad)).toThrow(ColorParseError);
      expect(() => parseColor(bad)).toThrow(`Invalid color "${bad}": expected "r,g,b"`);
    },
  );
});
