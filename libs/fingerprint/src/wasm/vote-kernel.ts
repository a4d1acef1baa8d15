import { ensureMemory, instantiateKernel, type KernelMemory } from './instantiate';
import { WASM_BASE64 } from './vote-kernel.wasm';

interface KernelExports {
  memory: KernelMemory;
  voteLists(at: number, last: number, left: number, idfs: number, tfq: number, k: number, votes: number, block: number): void;
}

/** One instance per thread (a module's state is per thread): its memory holds the largest vote read so far. */
let kernel: KernelExports | undefined;

/** The lists one vote reads, as `PostingLists` holds them: each list's bytes in a chunk, from `offsets[j]`, `lengths[j]` long. */
export interface KernelLists {
  data: Uint8Array[];
  offsets: Int32Array;
  lengths: Int32Array;
  counts: Int32Array;
  idfs: Float64Array;
  tfQueries: Int32Array;
}

/**
 * The votes of `lists` over `slots` slots, read in the vote kernel (vote-kernel.wat) block by block of `blockSlots`
 * slots: the lists' bytes are copied into its memory and the votes added up there, from zero, or with `addToLast` onto
 * those of this thread's last call (over as many slots). What it returns is a view of the kernel's memory, not a copy:
 * it holds the votes until this thread's next call.
 */
export function voteInKernel(lists: KernelLists, slots: number, blockSlots: number, addToLast = false): Float64Array {
  kernel ??= instantiateKernel<KernelExports>(WASM_BASE64);
  const k = lists.counts.length;
  let bytes = 0;
  for (let j = 0; j < k; j++) bytes += lists.lengths[j];
  // f64 arrays first, at offsets that are multiples of 8; then the i32 arrays; then the lists' bytes.
  const layout = { votes: 0, idfs: slots * 8, at: 0, last: 0, left: 0, tfq: 0, data: 0, end: 0 };
  layout.at = layout.idfs + k * 8;
  layout.last = layout.at + k * 4;
  layout.left = layout.last + k * 4;
  layout.tfq = layout.left + k * 4;
  layout.data = layout.tfq + k * 4;
  layout.end = layout.data + bytes;
  // Growing keeps the memory's contents, so the last call's votes are still there to add to.
  ensureMemory(kernel.memory, layout.end);
  const buffer = kernel.memory.buffer;
  const votes = new Float64Array(buffer, layout.votes, slots);
  if (!addToLast) votes.fill(0);
  new Float64Array(buffer, layout.idfs, k).set(lists.idfs);
  new Int32Array(buffer, layout.last, k).fill(-1);
  new Int32Array(buffer, layout.left, k).set(lists.counts);
  new Int32Array(buffer, layout.tfq, k).set(lists.tfQueries);
  const at = new Int32Array(buffer, layout.at, k);
  const memory = new Uint8Array(buffer);
  for (let j = 0, to = layout.data; j < k; j++) {
    const from = lists.offsets[j];
    memory.set(lists.data[j].subarray(from, from + lists.lengths[j]), to);
    at[j] = to;
    to += lists.lengths[j];
  }
  kernel.voteLists(layout.at, layout.last, layout.left, layout.idfs, layout.tfq, k, layout.votes, blockSlots);
  return votes;
}
