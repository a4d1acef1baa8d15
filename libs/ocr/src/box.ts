import type { PixelBox, Rect } from './types';

export function unionBox(boxes: PixelBox[]): PixelBox {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

export function boxArea(b: PixelBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

/** Area of the part two boxes share (0 when they do not overlap). */
export function intersectionArea(a: PixelBox, b: PixelBox): number {
  return boxArea({ x0: Math.max(a.x0, b.x0), y0: Math.max(a.y0, b.y0), x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1) });
}

export function intersectionOverUnion(a: PixelBox, b: PixelBox): number {
  const inter = intersectionArea(a, b);
  const union = boxArea(a) + boxArea(b) - inter;
  return union > 0 ? inter / union : 0;
}

const round2 = (v: number): number => Math.round(v * 100) / 100;

/** A rectangle of docs/protocol.md §8: percentages of the image size, two decimals. */
export function toPercentRect(b: PixelBox, size: { width: number; height: number }): Rect {
  return {
    left: round2((b.x0 / size.width) * 100),
    right: round2((b.x1 / size.width) * 100),
    top: round2((b.y0 / size.height) * 100),
    bottom: round2((b.y1 / size.height) * 100),
  };
}
