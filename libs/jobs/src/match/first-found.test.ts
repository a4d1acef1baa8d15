import type { MatchResult } from '@loupe/fingerprint';
import { describe, expect, it } from 'vitest';
import { StepTimer } from '../step-timer';
import { firstFound, type Found } from './first-found';

const confirmed = (candidate: number): Found => [{ candidate, result: { score: 20 } as MatchResult }];
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('firstFound', () => {
  it('answers what the first chance in order confirmed, though a later one confirmed sooner', async () => {
    const steps = new StepTimer();
    const found = await firstFound([['dense', after(20, [])], ['whole_image', after(40, confirmed(7))], ['placement', after(1, confirmed(9))]], steps);
    expect(found.map((f) => f.candidate)).toEqual([7]);
    // The chances answered are lapped in their order, the last one the one that found.
    expect(Object.keys(steps.times)).toEqual(['dense', 'whole_image']);
  });

  it('answers nothing when no chance confirms, having waited for all of them', async () => {
    const steps = new StepTimer();
    expect(await firstFound([['dense', after(5, [])], ['placement', after(15, [])]], steps)).toEqual([]);
    expect(Object.keys(steps.times)).toEqual(['dense', 'placement']);
  });

  it('leaves no rejection unhandled when an unawaited later chance fails, and fails when an awaited one does', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      expect(await firstFound([['dense', after(1, confirmed(3))], ['placement', Promise.reject(new Error('decode failed'))]])).toHaveLength(1);
      await after(10, null);
      expect(unhandled).toEqual([]);
      await expect(firstFound([['dense', Promise.reject(new Error('decode failed'))]])).rejects.toThrow('decode failed');
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
