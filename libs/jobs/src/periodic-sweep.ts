/** What a periodic sweep hands back: a line worth logging when it did something, else null. */
export type SweepSummary = string | null;

/**
 * Runs `sweep` every `intervalMinutes` (0: never), never two at once. The first run comes at a random point of the
 * first interval: replicas started together spread out, and short-lived processes (tests, one-off runs) do not sweep
 * at all. A failed sweep is logged and retried at the next interval; it must not stop the process that serves jobs.
 */
export function startPeriodicSweep(
  intervalMinutes: number,
  sweep: () => Promise<SweepSummary>,
  log: (message: string, error?: unknown) => void,
  name: string,
): { stop(): Promise<void> } {
  if (intervalMinutes <= 0) return { stop: async () => undefined };
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = sweep()
      .then((summary) => {
        if (summary) log(summary);
      })
      .catch((error) => log(`${name} failed`, error))
      .finally(() => (running = null));
  };
  const first = setTimeout(tick, Math.floor(Math.random() * intervalMinutes * 60_000));
  const timer = setInterval(tick, intervalMinutes * 60_000);
  first.unref();
  timer.unref();
  return {
    stop: async () => {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
