import { describe, expect, it } from 'vitest';
import { LazyOcrPool } from './lazy-pool';
import { OcrPoolClosedError } from './ocr-pool';

describe('LazyOcrPool', () => {
  it('starts one pool on first use, shares it, and refuses use once closed', async () => {
    const ocr = new LazyOcrPool(1);
    const [a, b] = await Promise.all([ocr.get(), ocr.get()]);
    expect(a).toBe(b);
    expect(a.size).toBe(1);
    await ocr.close();
    await expect(ocr.get()).rejects.toBeInstanceOf(OcrPoolClosedError);
    await expect(a.readBands({ data: new Uint8Array(1), width: 1, height: 1 }, [])).rejects.toBeInstanceOf(OcrPoolClosedError);
  }, 30_000);

  it('never starts a pool it is closed before using', async () => {
    const ocr = new LazyOcrPool(1);
    await ocr.close();
    await expect(ocr.get()).rejects.toBeInstanceOf(OcrPoolClosedError);
  });
});
