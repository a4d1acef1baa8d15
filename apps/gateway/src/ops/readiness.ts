/** One dependency the gateway needs to serve requests; `check` throws when it is unreachable. */
export interface ReadinessProbe {
  name: string;
  check(): Promise<void>;
}

/** A probe that does not answer within this time counts as down: a hung dependency must not hang the probe. */
export const PROBE_TIMEOUT_MS = 2_000;

export async function runProbe(probe: ReadinessProbe): Promise<{ ok: boolean; ms: number; error?: string }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe.check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, ms: Date.now() - started };
  } catch (error) {
    return { ok: false, ms: Date.now() - started, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
