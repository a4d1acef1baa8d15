import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Runs a script in a fresh Node process (the test process may have loaded OpenCV already, and a crash must not take
 * the test runner down) with the loader of this package imported as `loadOpenCv`.
 */
function runWithOpenCv(script: string): { status: number | null; stdout: string; stderr: string } {
  const loader = JSON.stringify(path.join(__dirname, 'opencv.ts'));
  const program = `const { loadOpenCv } = require(${loader});\n(async () => {\n${script}\n})();`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', program], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 50_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('loading OpenCV', () => {
  it('leaves the process listeners as they were', () => {
    const { status, stdout, stderr } = runWithOpenCv(`
      const snapshot = () => Object.fromEntries(process.eventNames().map((n) => [String(n), process.listenerCount(n)]));
      // After a turn of the loop: Node's own entry-point \`exit\` listener is gone by then.
      await new Promise((resolve) => setImmediate(resolve));
      const before = snapshot();
      await loadOpenCv();
      console.log(JSON.stringify({ before, after: snapshot() }));
    `);
    expect(status, stderr).toBe(0);
    const { before, after } = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(after).toEqual(before);
    expect(after.uncaughtException ?? 0).toBe(0);
    expect(after.unhandledRejection ?? 0).toBe(0);
  }, 60_000);

  it('lets a later crash print a normal stack, not the module source', () => {
    const { status, stderr } = runWithOpenCv(`
      const { cv } = await loadOpenCv();
      new cv.Mat(2, 2, cv.CV_8UC1).delete();
      setTimeout(() => { throw new Error('crash after OpenCV'); }, 0);
    `);
    expect(status).toBe(1);
    expect(stderr).toContain('Error: crash after OpenCV');
    // Node prints the source line a throw came from; OpenCV's rethrowing handler made that its own ~10 MB line.
    expect(stderr.length).toBeLessThan(20_000);
  }, 60_000);
});
