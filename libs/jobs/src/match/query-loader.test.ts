import type { Features } from '@loupe/fingerprint';
import { describe, expect, it } from 'vitest';
import { LoadedQuery, worthPlacing } from './query-loader';

const queryWith = (count: number) => ({ label: 'q.jpg', features: { count } as Features }) as LoadedQuery;
const words = (distinct: number, total: number) => Uint32Array.from({ length: total }, (_, i) => i % distinct);

describe('which queries are worth placing by their pixels', () => {
  it('places a query with few points, or whose words repeat, and not a photo of distinct corners', () => {
    expect(worthPlacing(queryWith(40), words(40, 40))).toBe(true);
    expect(worthPlacing(queryWith(1000), words(300, 1000))).toBe(true);
    expect(worthPlacing(queryWith(1000), words(850, 1000))).toBe(false);
    // A quarter of the words repeated is the bound.
    expect(worthPlacing(queryWith(1000), words(760, 1000))).toBe(false);
    expect(worthPlacing(queryWith(1000), words(740, 1000))).toBe(true);
  });
});
