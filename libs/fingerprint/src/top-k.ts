/**
 * The best `k` of the indices offered, by their values in `values`: largest first, and of equal values the index offered
 * first. Indices are offered in increasing order, with positive values above `floor` (the caller skips the rest; an
 * equal value never enters, it came later). Kept in a binary heap whose root is the worst kept, so an index that enters
 * costs O(log k): the benchmark's rank diagnostics keep thousands of a million slots, where insertion into a sorted
 * array cost O(k) an index (50 s of CPU in a 1M run).
 */
export class TopIndices {
  private readonly heap: number[] = [];

  constructor(
    private readonly values: Float64Array,
    private readonly k: number,
  ) {}

  /** The value an index must exceed to enter: the worst kept once `k` are, else 0. */
  get floor(): number {
    return this.heap.length >= this.k && this.k > 0 ? this.values[this.heap[0]] : 0;
  }

  /** Keeps `i` if it is among the best `k` so far; gives back the new `floor`. */
  offer(i: number): number {
    const { heap, k } = this;
    if (k <= 0) return 0;
    if (heap.length < k) {
      heap.push(i);
      this.siftUp(heap.length - 1);
    } else if (this.values[i] > this.values[heap[0]]) {
      heap[0] = i;
      this.siftDown(0);
    }
    return this.floor;
  }

  /** The kept indices, best first. */
  ranked(): number[] {
    const values = this.values;
    return [...this.heap].sort((a, b) => values[b] - values[a] || a - b);
  }

  /** Whether `a` ranks below `b`: a smaller value, or an equal one offered later. */
  private worse(a: number, b: number): boolean {
    const va = this.values[a];
    const vb = this.values[b];
    return va < vb || (va === vb && a > b);
  }

  private siftUp(at: number): void {
    const heap = this.heap;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.worse(heap[at], heap[parent])) return;
      [heap[at], heap[parent]] = [heap[parent], heap[at]];
      at = parent;
    }
  }

  private siftDown(at: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= heap.length) return;
      const right = left + 1;
      const child = right < heap.length && this.worse(heap[right], heap[left]) ? right : left;
      if (!this.worse(heap[child], heap[at])) return;
      [heap[at], heap[child]] = [heap[child], heap[at]];
      at = child;
    }
  }
}
