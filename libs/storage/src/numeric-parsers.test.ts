import { describe, expect, it } from 'vitest';
import { mapArrayLeaves, parseInt8, parseNumeric } from './numeric-parsers';

describe('int8 and numeric text parsing', () => {
  it('gives plain numbers for int8 values up to 2^53 - 1', () => {
    expect(parseInt8('42')).toBe(42);
    expect(parseInt8('-9007199254740991')).toBe(-9007199254740991);
  });

  it('gives a BigInt rather than a rounded number beyond 2^53', () => {
    expect(parseInt8('9007199254740993')).toBe(9007199254740993n);
  });

  it('gives numbers for numerics a double holds exactly, text for longer ones', () => {
    expect(parseNumeric('12.50')).toBe(12.5);
    expect(parseNumeric('0.000123')).toBe(0.000123);
    expect(parseNumeric('123456789012345')).toBe(123456789012345);
    expect(parseNumeric('1234567890.1234567')).toBe('1234567890.1234567');
    expect(parseNumeric('NaN')).toBeNaN();
  });

  it('parses every leaf of nested arrays and keeps nulls', () => {
    expect(mapArrayLeaves([['1', null], ['3', '4']], parseInt8)).toEqual([[1, null], [3, 4]]);
  });
});
