import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StepTimer } from './step-timer';

describe('StepTimer', () => {
  let now = 0;
  const advance = (ms: number) => (now += ms);
  beforeEach(() => {
    now = 1000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => vi.restoreAllMocks());

  it('charges each lap the time since the previous one, adding up a step reached twice', () => {
    const steps = new StepTimer();
    advance(30);
    steps.lap('vote');
    advance(50);
    steps.lap('verification');
    advance(20);
    steps.lap('vote');
    expect(steps.times).toEqual({ vote: 50, verification: 50 });
  });

  it('adds the steps of work run alongside after its own, and starts its next lap when they are added', () => {
    const steps = new StepTimer();
    const beside = new StepTimer();
    advance(40);
    beside.lap('upright_vote');
    advance(20);
    steps.lap('dense');
    advance(30);
    beside.lap('upright_chances');
    steps.alongside(beside);
    advance(5);
    steps.lap('overlays');
    // Overlapping: 60 + 40 + 50 ms of steps in 95 ms.
    expect(steps.times).toEqual({ dense: 60, upright_vote: 40, upright_chances: 50, overlays: 5 });
    expect(Object.keys(steps.times)).toEqual(['dense', 'upright_vote', 'upright_chances', 'overlays']);
  });
});
