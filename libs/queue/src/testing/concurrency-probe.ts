/**
 * Test helper: a slow processor body that records start and end order and the highest overlap seen. Closing the
 * gate holds started jobs before their sleep, so a test can line up arrivals without any job finishing meanwhile.
 */
export interface ConcurrencyProbe {
  work(id: string, ms: number): Promise<string>;
  closeGate(): void;
  openGate(): void;
  readonly starts: string[];
  readonly ends: string[];
  readonly maxRunning: number;
  readonly running: number;
}

export function createConcurrencyProbe(): ConcurrencyProbe {
  const starts: string[] = [];
  const ends: string[] = [];
  let running = 0;
  let maxRunning = 0;
  let gate = Promise.resolve();
  let open = () => undefined as void;
  return {
    async work(id, ms) {
      running++;
      maxRunning = Math.max(maxRunning, running);
      starts.push(id);
      await gate;
      await sleep(ms);
      running--;
      ends.push(id);
      return id;
    },
    closeGate() {
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    openGate() {
      open();
    },
    starts,
    ends,
    get maxRunning() {
      return maxRunning;
    },
    get running() {
      return running;
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function ids(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
}

/** Polls until `condition` holds; fails after `timeoutMs` so a broken test cannot hang. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error('condition not met in time');
    await sleep(5);
  }
}
