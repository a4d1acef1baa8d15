/**
 * Two runs of the matching benchmark compared query by query (`run.ts --query-times F`). Both ran the same command, so
 * they searched the same queries; a search's time is set mostly by its query (which chances it reaches), and the p95
 * of a hundred searches by its five or six slowest. Compared by query, the searches whose first answer differs are
 * listed apart, and those a change moved show by name. Single searches are noisy too: on a 2-core EPYC host the same
 * code run twice gave ratios from 0.77 (p10) to 1.42 (p90), so a ratio's median says more than any one search's.
 *
 *   npx tsx tools/bench/match/paired-times.ts before.jsonl after.jsonl
 */
import { readFileSync } from 'node:fs';
import type { StepTimes } from '@loupe/jobs';
import { meanSteps, pct } from '../report';

/** One search of a benchmark run: where and what it searched, its time, and the first image it answered. */
export interface QueryTime {
  size: number;
  kind: 'collection' | 'outside';
  family: string;
  source: string;
  edit: string;
  ms: number;
  first: string | null;
  /** The search's time per step (`SearchResult.steps`); absent in files written before steps were recorded. */
  steps?: StepTimes;
}

interface Pair {
  key: string;
  before: QueryTime;
  after: QueryTime;
}

/** The searches of a run by query; a query searched twice at one scale is told apart by its order. */
function byQuery(file: string): Map<string, QueryTime> {
  const seen = new Map<string, number>();
  const out = new Map<string, QueryTime>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const t = JSON.parse(line) as QueryTime;
    const base = `${t.size} ${t.kind} ${t.family} ${t.source} ${t.edit}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.set(n === 0 ? base : `${base} #${n + 1}`, t);
  }
  return out;
}

const ms = (v: number) => `${Math.round(v)} ms`;
const spread = (times: number[]) => `p50 ${ms(pct(times, 50))}, p95 ${ms(pct(times, 95))}`;

/**
 * The mean time per step of a run's slowest tenth of searches, which hold its p95: a step the change made dearer shows
 * here even when it is a small part of the median search.
 */
function slowestTenthSteps(run: QueryTime[]): string {
  const slowest = [...run].sort((a, b) => b.ms - a.ms).slice(0, Math.max(1, Math.round(run.length / 10)));
  if (slowest.some((t) => !t.steps)) return 'not recorded';
  const mean = slowest.reduce((sum, t) => sum + t.ms, 0) / slowest.length;
  return `${ms(mean)}: ${meanSteps(slowest.map((t) => t.steps!)).map(([step, stepMs]) => `${step} ${stepMs}`).join(' + ')}`;
}

function describe(size: number, pairs: Pair[]): string[] {
  const same = pairs.filter((p) => p.before.first === p.after.first);
  const changed = pairs.filter((p) => p.before.first !== p.after.first);
  const ratios = same.map((p) => p.after.ms / p.before.ms);
  const lines = [
    `${size} images: ${pairs.length} searches in both runs`,
    `  all: before ${spread(pairs.map((p) => p.before.ms))}; after ${spread(pairs.map((p) => p.after.ms))}`,
    `  same first answer (${same.length}): before ${spread(same.map((p) => p.before.ms))}; after ${spread(same.map((p) => p.after.ms))}; after / before by query: median ${pct(ratios, 50).toFixed(2)} (p10 ${pct(ratios, 10).toFixed(2)}, p90 ${pct(ratios, 90).toFixed(2)})`,
  ];
  for (const p of changed) lines.push(`  answer changed: ${p.key}: ${p.before.first ?? 'none'} (${ms(p.before.ms)}) → ${p.after.first ?? 'none'} (${ms(p.after.ms)})`);
  const slowest = [...pairs].sort((a, b) => Math.max(b.before.ms, b.after.ms) - Math.max(a.before.ms, a.after.ms)).slice(0, 6);
  lines.push(`  slowest tenth, mean ms per step: before ${slowestTenthSteps(pairs.map((p) => p.before))}; after ${slowestTenthSteps(pairs.map((p) => p.after))}`);
  lines.push('  slowest: ' + slowest.map((p) => `${p.before.edit} of ${p.before.source.split('/').pop()} ${ms(p.before.ms)} → ${ms(p.after.ms)}`).join('; '));
  return lines;
}

function main() {
  const [beforeFile, afterFile] = process.argv.slice(2);
  if (!beforeFile || !afterFile) throw new Error('usage: paired-times.ts before.jsonl after.jsonl');
  const before = byQuery(beforeFile);
  const after = byQuery(afterFile);
  const bySize = new Map<number, Pair[]>();
  for (const [key, b] of before) {
    const a = after.get(key);
    if (!a) continue;
    const pairs = bySize.get(b.size) ?? [];
    pairs.push({ key, before: b, after: a });
    bySize.set(b.size, pairs);
  }
  const unpaired = before.size + after.size - 2 * [...bySize.values()].reduce((n, p) => n + p.length, 0);
  if (unpaired > 0) console.log(`${unpaired} searches are in one run only (not the same command?)`);
  for (const [size, pairs] of [...bySize].sort((a, b) => a[0] - b[0])) console.log(describe(size, pairs).join('\n'));
}

main();
