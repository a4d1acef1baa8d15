/**
 * Where a benchmark's CPU went, by function, from the V8 profiles that `node --cpu-prof` writes (one file per thread:
 * the main thread and every worker of the verification and compute pools). Each function's own time and its time
 * including what it called, summed over the files given, waiting and unattributed time left out. A search hands work
 * to other threads by message, so a worker's stacks start at its task (`verifyMatch`, `locateCrop`, ...), not at the
 * search step that asked for it: read the tasks' inclusive times, and the main thread's steps, apart.
 *
 *   node --cpu-prof --cpu-prof-dir=DIR --expose-gc --import tsx tools/bench/match/run.ts ...
 *   npx tsx tools/bench/cpu-profile.ts [--top N] [--from S --to S] DIR/CPU.*.cpuprofile
 *
 * `--from`/`--to` keep the samples taken that many seconds after the profile's own start (a main thread's profile spans
 * the whole run: ingest, then each scale's searches, whose start times the benchmark's log gives).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { flag } from './report';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds since the previous sample (the first: since the profile's start). */
  timeDeltas: number[];
}

/** Frames left out: a thread waiting for work, and time V8 could not attribute to any frame. */
const NOT_WORK = new Set(['(idle)', '(program)']);

const frameName = ({ callFrame: f }: ProfileNode) => `${f.functionName || '(anonymous)'} ${basename(f.url || '') || '(native)'}:${f.lineNumber + 1}`;

/** Own and inclusive milliseconds per function over `files`, and the total, for samples within [fromS, toS] seconds. */
function timeByFunction(files: readonly string[], fromS = 0, toS = Infinity) {
  const own = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parentOf = new Map<number, number>();
    for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
    let elapsedUs = 0;
    profile.samples.forEach((id, i) => {
      elapsedUs += profile.timeDeltas[i];
      // A sample stands for the time until the next one.
      const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      const node = byId.get(id)!;
      if (elapsedUs / 1e6 < fromS || elapsedUs / 1e6 > toS || NOT_WORK.has(node.callFrame.functionName)) return;
      total += ms;
      const name = frameName(node);
      own.set(name, (own.get(name) ?? 0) + ms);
      // A recursive function counts once per sample in its inclusive time.
      const counted = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
        const caller = frameName(byId.get(at)!);
        if (counted.has(caller)) continue;
        counted.add(caller);
        inclusive.set(caller, (inclusive.get(caller) ?? 0) + ms);
      }
    });
  }
  return { own, inclusive, total };
}

function main() {
  const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (files.length === 0) throw new Error('usage: cpu-profile.ts [--top N] [--from S --to S] FILE.cpuprofile ...');
  const top = Number(flag('top') ?? 40);
  const { own, inclusive, total } = timeByFunction(files, Number(flag('from') ?? 0), Number(flag('to') ?? Infinity));
  const listed = (times: Map<string, number>) => [...times].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, ms]) => `${Math.round(ms).toString().padStart(8)} ms  ${name}`);
  console.log(`${files.length} profiles, ${Math.round(total)} ms of work`);
  console.log(['own time:', ...listed(own), 'including callees:', ...listed(inclusive)].join('\n'));
}

main();
