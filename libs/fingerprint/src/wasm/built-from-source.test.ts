import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileKernel, generatedModule, generatedPath, KERNELS } from '../../../../tools/wasm/build';

describe('WebAssembly kernels', () => {
  it.each(KERNELS.map((wat) => [path.basename(wat), wat]))('%s is built into its committed module (npm run build:wasm)', async (_name, wat) => {
    expect(await readFile(generatedPath(wat), 'utf8')).toBe(generatedModule(wat, await compileKernel(wat)));
  });

  it('covers every kernel source in this folder', async () => {
    const sources = (await readdir(__dirname)).filter((f) => f.endsWith('.wat')).sort();
    expect(KERNELS.map((wat) => path.basename(wat)).sort()).toEqual(sources);
  });
});
