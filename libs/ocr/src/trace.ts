/**
 * Where a label read spends its time, for profiling (tools/bench/wine/profile-extract.ts): each stage reports its
 * wall time and the CPU time of the whole process over it (tesseract's worker threads included), so stages are
 * only attributed right when one read runs at a time.
 */
export type StageTrace = (stage: string, wallMs: number, cpuMs: number) => void;

export async function traced<T>(trace: StageTrace | undefined, stage: string, work: () => T | Promise<T>): Promise<T> {
  if (!trace) return work();
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  try {
    return await work();
  } finally {
    const cpu = process.cpuUsage(cpu0);
    trace(stage, performance.now() - wall0, (cpu.user + cpu.system) / 1000);
  }
}
