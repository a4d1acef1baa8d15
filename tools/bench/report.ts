/**
 * What the benchmarks share: command-line flags, percentiles, seeded shuffles, searches' steps and their sections of
 * docs/benchmarks.md.
 */
import type { StepTimes } from '@loupe/jobs';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const BENCHMARKS_FILE = path.join(__dirname, '..', '..', 'docs', 'benchmarks.md');

/** The value after `--name` on the command line, or undefined when the flag is not given. */
export function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * The machine a benchmark ran on: cores, processor model and Node. Timings are only comparable on one processor (the
 * same machine kind measured two thirds slower votes on an AMD EPYC than on an Intel Xeon host).
 */
export function machine(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown processor'}), Node ${process.version}`;
}

/** The p-th percentile (nearest rank) of `values`; NaN for none. */
export function pct(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** A copy of `items` in a random order drawn from `rnd` (Fisher-Yates), so a seed gives the same order. */
export function shuffle<T>(items: readonly T[], rnd: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Replaces the section of docs/benchmarks.md that starts with `heading` (up to the next `## ` heading) by `section`,
 * or appends it when there is none.
 */
export async function writeBenchmarkSection(heading: string, section: string): Promise<void> {
  let text = existsSync(BENCHMARKS_FILE) ? await readFile(BENCHMARKS_FILE, 'utf8') : '# Benchmarks\n\n';
  const start = text.indexOf(heading);
  if (start >= 0) {
    const next = text.indexOf('\n## ', start + 1);
    text = text.slice(0, start) + section + (next >= 0 ? '\n' + text.slice(next + 1) : '');
  } else {
    text = text.replace(/\n*$/, '\n\n') + section;
  }
  await writeFile(BENCHMARKS_FILE, text);
}

/** The steps a search reports (`SearchResult.steps`), in the order it takes them (match.service.ts). */
const SEARCH_STEPS = ['query', 'vote', 'verification', 'hash_neighbours', 'dense', 'whole_image', 'placement', 'upright_copy', 'upright_vote', 'upright_chances', 'overlays'];

/** The step of a search that found what it answered: the last one it reached (steps come in order, each once). */
export function lastStep(steps: StepTimes | undefined): string | undefined {
  return Object.keys(steps ?? {}).at(-1);
}

/** The mean time (ms, rounded) per step over `searches`, a step counting 0 for a search that did not reach it, in the order searches take them. */
export function meanSteps(searches: readonly StepTimes[]): Array<[string, number]> {
  const sums = new Map<string, number>();
  for (const steps of searches) for (const [step, ms] of Object.entries(steps)) sums.set(step, (sums.get(step) ?? 0) + ms);
  const order = SEARCH_STEPS.filter((step) => sums.has(step)).concat([...sums.keys()].filter((step) => !SEARCH_STEPS.includes(step)));
  return order.map((step) => [step, Math.round(sums.get(step)! / Math.max(1, searches.length))]);
}
