import type { OcrLine } from '../types';

/** OcrLines as tesseract would report them: one per text, stacked, words boxed left to right. */
export function syntheticLines(texts: string[], opts: { lineHeight?: number; heights?: number[] } = {}): OcrLine[] {
  const lineHeight = opts.lineHeight ?? 30;
  let y = 10;
  return texts.map((text, i) => {
    const h = opts.heights?.[i] ?? lineHeight - 10;
    let x = 20;
    const words = text.split(/\s+/).filter(Boolean).map((w) => {
      const box = { x0: x, y0: y, x1: x + w.length * 10, y1: y + h };
      x = box.x1 + 10;
      return { text: w, confidence: 90, box };
    });
    const line: OcrLine = { text, confidence: 90, box: { x0: 20, y0: y, x1: Math.max(21, x - 10), y1: y + h }, words };
    y += h + 10;
    return line;
  });
}
