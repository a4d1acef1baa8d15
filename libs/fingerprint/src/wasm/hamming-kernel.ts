import { DESCRIPTOR_BYTES } from '../hamming';
import { WASM_BASE64 } from './hamming-kernel.wasm';
import { ensureMemory, instantiateKernel, type KernelMemory } from './instantiate';

/** Distance the kernel reports for "no such neighbour" (larger than any 256-bit distance). */
export const NO_DISTANCE = 1000;

interface KernelExports {
  memory: KernelMemory;
  nearestTwoInCells(query: number, nq: number, cells: number, target: number, ranges: number, out: number): void;
  gatherRows(src: number, order: number, n: number, dst: number): void;
}

let kernel: KernelExports | undefined;

function instance(): KernelExports {
  kernel ??= instantiateKernel<KernelExports>(WASM_BASE64);
  return kernel;
}

/** Per query descriptor: position of the nearest target in the sorted target list (-1: none), its distance, the second. */
export interface NearestTwo {
  position: Int32Array;
  best: Int32Array;
  second: Int32Array;
}

/**
 * Nearest and second-nearest target descriptor of every query descriptor, each compared only with the targets of its
 * own cell. The targets in cell order are `targets` itself, or with `order` its rows `order[0]`, `order[1]`, ...;
 * `ranges[c]` is the [start, end) of dense cell c in that order and `queryCells[i]` the dense cell of query descriptor i
 * (-1: compare with none). Positions are in that order too.
 */
export function nearestTwoInCells(queryDescriptors: Uint8Array, queryCells: Int32Array, targets: Uint8Array, ranges: Int32Array, order?: Int32Array): NearestTwo {
  const k = instance();
  const nq = queryCells.length;
  const rows = order ? order.length : targets.length / DESCRIPTOR_BYTES;
  const layout = { query: 0, cells: 0, target: 0, ranges: 0, out: 0, unordered: 0, order: 0, end: 0 };
  layout.cells = layout.query + nq * DESCRIPTOR_BYTES;
  layout.target = layout.cells + nq * 4;
  layout.ranges = layout.target + rows * DESCRIPTOR_BYTES;
  layout.out = layout.ranges + ranges.length * 4;
  layout.unordered = layout.out + nq * 12;
  layout.order = layout.unordered + (order ? targets.length : 0);
  layout.end = layout.order + (order ? order.length * 4 : 0);
  ensureMemory(k.memory, layout.end);
  const bytes = new Uint8Array(k.memory.buffer);
  bytes.set(queryDescriptors.subarray(0, nq * DESCRIPTOR_BYTES), layout.query);
  new Int32Array(k.memory.buffer, layout.cells, nq).set(queryCells);
  if (order) {
    // One copy of the rows as they are, then the kernel's gather: a copy row by row in JavaScript cost a fifth of a pair.
    bytes.set(targets, layout.unordered);
    new Int32Array(k.memory.buffer, layout.order, order.length).set(order);
    k.gatherRows(layout.unordered, layout.order, order.length, layout.target);
  } else {
    bytes.set(targets, layout.target);
  }
  new Int32Array(k.memory.buffer, layout.ranges, ranges.length).set(ranges);
  k.nearestTwoInCells(layout.query, nq, layout.cells, layout.target, layout.ranges, layout.out);
  const out = new Int32Array(k.memory.buffer, layout.out, nq * 3);
  const result: NearestTwo = { position: new Int32Array(nq), best: new Int32Array(nq), second: new Int32Array(nq) };
  for (let i = 0; i < nq; i++) {
    result.position[i] = out[3 * i];
    result.best[i] = out[3 * i + 1];
    result.second[i] = out[3 * i + 2];
  }
  return result;
}
