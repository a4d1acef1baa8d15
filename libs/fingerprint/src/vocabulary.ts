import { DESCRIPTOR_BYTES, hamming } from './hamming';
import { seededRandom } from './random';
import { nearestTwoInCells } from './wasm/hamming-kernel';
import type { Features } from './types';

/**
 * Branching factor and depth of the k-majority tree: 10^4 = 10 000 words. With ~1000 keypoints per image
 * a word is shared by few images, so idf voting separates 10 000 images, while a descriptor still falls in
 * the same leaf under JPEG/blur noise often enough (Nistér & Stewénius use 10 per level too).
 */
const BRANCHING = 10;
const DEPTH = 4;
/** k-majority rounds per node; assignments stop changing after ~6 on ORB bits. */
const ITERATIONS = 8;
const DEFAULT_SEED = 1;
/** "LVO1": Loupe VOcabulary, layout version 1. */
const MAGIC = 0x314f564c;

/**
 * Binary visual words: a hierarchical k-majority tree over 256-bit ORB descriptors. A descriptor's word is
 * the leaf reached by descending to the nearest (Hamming) centre at each level.
 */
export class Vocabulary {
  private constructor(
    /** 32 bytes per node. */
    private readonly centres: Uint8Array,
    /** Index of a node's first child, or -1 for a leaf. Children are contiguous. */
    private readonly firstChild: Int32Array,
    private readonly childCount: Uint8Array,
    /** Word id of a leaf, -1 for inner nodes. */
    private readonly word: Int32Array,
    readonly size: number,
  ) {}

  /**
   * Trains on `descriptors` (32 bytes each); the same data and options give the same vocabulary. `branching` ^ `depth`
   * words at most (10^4 by default).
   */
  static train(descriptors: Uint8Array, opts: { seed?: number; branching?: number; depth?: number } = {}): Vocabulary {
    const rnd = seededRandom(opts.seed ?? DEFAULT_SEED);
    const branching = opts.branching ?? BRANCHING;
    const depth = opts.depth ?? DEPTH;
    const n = descriptors.length / DESCRIPTOR_BYTES;
    const centres: Uint8Array[] = [new Uint8Array(DESCRIPTOR_BYTES)];
    const firstChild: number[] = [-1];
    const childCount: number[] = [0];
    const word: number[] = [-1];
    const all = Int32Array.from({ length: n }, (_, i) => i);
    let words = 0;
    // Breadth-first so children of a node get contiguous ids.
    const queue: Array<{ node: number; members: Int32Array; level: number }> = [{ node: 0, members: all, level: 0 }];
    while (queue.length > 0) {
      const { node, members, level } = queue.shift()!;
      const groups = level < depth ? kMajority(descriptors, members, branching, rnd) : [];
      if (groups.length < 2) {
        word[node] = words++;
        continue;
      }
      firstChild[node] = centres.length;
      childCount[node] = groups.length;
      for (const g of groups) {
        const id = centres.length;
        centres.push(g.centre);
        firstChild.push(-1);
        childCount.push(0);
        word.push(-1);
        queue.push({ node: id, members: g.members, level: level + 1 });
      }
    }
    const flat = new Uint8Array(centres.length * DESCRIPTOR_BYTES);
    centres.forEach((c, i) => flat.set(c, i * DESCRIPTOR_BYTES));
    return new Vocabulary(flat, Int32Array.from(firstChild), Uint8Array.from(childCount), Int32Array.from(word), words);
  }

  /** One word id per keypoint of `f`. */
  quantize(f: Features): Uint32Array {
    const leaves = this.descendAll(f, Infinity);
    const words = new Uint32Array(leaves.length);
    for (let i = 0; i < leaves.length; i++) words[i] = this.word[leaves[i]];
    return words;
  }

  /**
   * Per keypoint of `f`, the tree node reached after `depth` levels (a coarse cell of descriptor space: 10 cells at
   * depth 1, 100 at depth 2). Node ids are global, below `nodeCount`.
   */
  cells(f: Features, depth: number): Int32Array {
    return this.descendAll(f, depth);
  }

  get nodeCount(): number {
    return this.firstChild.length;
  }

  /**
   * The node every descriptor of `f` reaches after `depth` levels (or at a leaf), descending to the nearest centre
   * (Hamming; the first of equals) level by level. One kernel call a level compares every descriptor with its node's
   * children: breadth-first ids make the children of one level's nodes a contiguous run of centres.
   */
  private descendAll(f: Features, depth: number): Int32Array {
    const nodes = new Int32Array(f.count);
    for (let level = 0; level < depth; level++) {
      let nodeLo = this.firstChild.length;
      let nodeHi = -1;
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[i];
        if (this.firstChild[node] < 0) continue;
        if (node < nodeLo) nodeLo = node;
        if (node > nodeHi) nodeHi = node;
      }
      if (nodeHi < 0) break;
      const childLo = this.firstChild[nodeLo];
      const childHi = this.firstChild[nodeHi] + this.childCount[nodeHi];
      const ranges = new Int32Array((nodeHi - nodeLo + 1) * 2);
      for (let node = nodeLo; node <= nodeHi; node++) {
        if (this.firstChild[node] < 0) continue;
        ranges[2 * (node - nodeLo)] = this.firstChild[node] - childLo;
        ranges[2 * (node - nodeLo) + 1] = this.firstChild[node] + this.childCount[node] - childLo;
      }
      // A loop, not Int32Array.from with a mapping function, which calls it per descriptor: verification takes the cells
      // of every target it checks, and 1,000 descriptors' cells took 140 µs that way, 50 µs this way.
      const cells = new Int32Array(nodes.length);
      for (let i = 0; i < nodes.length; i++) cells[i] = this.firstChild[nodes[i]] < 0 ? -1 : nodes[i] - nodeLo;
      const centres = this.centres.subarray(childLo * DESCRIPTOR_BYTES, childHi * DESCRIPTOR_BYTES);
      const nearest = nearestTwoInCells(f.descriptors, cells, centres, ranges);
      for (let i = 0; i < nodes.length; i++) if (nearest.position[i] >= 0) nodes[i] = childLo + nearest.position[i];
    }
    return nodes;
  }

  /** Layout (little endian): magic, nodes, size (u32 each), then per node firstChild i32, word i32, childCount u8, centre u8[32]. */
  serialize(): Buffer {
    const nodes = this.firstChild.length;
    const out = Buffer.alloc(12 + nodes * (4 + 4 + 1 + DESCRIPTOR_BYTES));
    out.writeUInt32LE(MAGIC, 0);
    out.writeUInt32LE(nodes, 4);
    out.writeUInt32LE(this.size, 8);
    let o = 12;
    for (let i = 0; i < nodes; i++) {
      out.writeInt32LE(this.firstChild[i], o);
      out.writeInt32LE(this.word[i], o + 4);
      out.writeUInt8(this.childCount[i], o + 8);
      out.set(this.centres.subarray(i * DESCRIPTOR_BYTES, (i + 1) * DESCRIPTOR_BYTES), o + 9);
      o += 9 + DESCRIPTOR_BYTES;
    }
    return out;
  }

  static deserialize(b: Buffer): Vocabulary {
    if (b.length < 12 || b.readUInt32LE(0) !== MAGIC) throw new Error('Not a serialized Vocabulary buffer');
    const nodes = b.readUInt32LE(4);
    const size = b.readUInt32LE(8);
    if (b.length < 12 + nodes * (9 + DESCRIPTOR_BYTES)) throw new Error('Truncated Vocabulary buffer');
    const centres = new Uint8Array(nodes * DESCRIPTOR_BYTES);
    const firstChild = new Int32Array(nodes);
    const word = new Int32Array(nodes);
    const childCount = new Uint8Array(nodes);
    let o = 12;
    for (let i = 0; i < nodes; i++) {
      firstChild[i] = b.readInt32LE(o);
      word[i] = b.readInt32LE(o + 4);
      childCount[i] = b.readUInt8(o + 8);
      centres.set(b.subarray(o + 9, o + 9 + DESCRIPTOR_BYTES), i * DESCRIPTOR_BYTES);
      o += 9 + DESCRIPTOR_BYTES;
    }
    return new Vocabulary(centres, firstChild, childCount, word, size);
  }
}

interface Cluster {
  centre: Uint8Array;
  members: Int32Array;
}

/** k-majority clustering: Hamming assignment, per-bit majority vote as the new centre. Empty clusters are dropped. */
function kMajority(descriptors: Uint8Array, members: Int32Array, k: number, rnd: () => number): Cluster[] {
  if (members.length < k * 2) return [];
  let centres: Uint8Array = new Uint8Array(k * DESCRIPTOR_BYTES);
  for (let c = 0; c < k; c++) {
    const m = members[Math.floor(rnd() * members.length)];
    centres.set(descriptors.subarray(m * DESCRIPTOR_BYTES, (m + 1) * DESCRIPTOR_BYTES), c * DESCRIPTOR_BYTES);
  }
  const assign = new Int32Array(members.length);
  for (let it = 0; it < ITERATIONS; it++) {
    for (let j = 0; j < members.length; j++) {
      let best = 0;
      let bestD = Infinity;
      for (let c = 0; c < k; c++) {
        const d = hamming(descriptors, members[j], centres, c);
        if (d < bestD) {
          bestD = d;
          best = c;
        }
      }
      assign[j] = best;
    }
    centres = majorityCentres(descriptors, members, assign, k, centres);
  }
  const clusters: Cluster[] = [];
  for (let c = 0; c < k; c++) {
    const idx = members.filter((_, j) => assign[j] === c);
    if (idx.length > 0) clusters.push({ centre: centres.slice(c * DESCRIPTOR_BYTES, (c + 1) * DESCRIPTOR_BYTES), members: idx });
  }
  return clusters;
}

function majorityCentres(descriptors: Uint8Array, members: Int32Array, assign: Int32Array, k: number, previous: Uint8Array): Uint8Array {
  const bits = DESCRIPTOR_BYTES * 8;
  const ones = new Int32Array(k * bits);
  const sizes = new Int32Array(k);
  for (let j = 0; j < members.length; j++) {
    const c = assign[j];
    sizes[c]++;
    const base = members[j] * DESCRIPTOR_BYTES;
    for (let byte = 0; byte < DESCRIPTOR_BYTES; byte++) {
      const v = descriptors[base + byte];
      if (v === 0) continue;
      for (let bit = 0; bit < 8; bit++) if (v & (1 << bit)) ones[c * bits + byte * 8 + bit]++;
    }
  }
  const out = new Uint8Array(k * DESCRIPTOR_BYTES);
  for (let c = 0; c < k; c++) {
    // An emptied cluster keeps its previous centre, so it can win points back next round.
    if (sizes[c] === 0) {
      out.set(previous.subarray(c * DESCRIPTOR_BYTES, (c + 1) * DESCRIPTOR_BYTES), c * DESCRIPTOR_BYTES);
      continue;
    }
    for (let byte = 0; byte < DESCRIPTOR_BYTES; byte++) {
      let v = 0;
      for (let bit = 0; bit < 8; bit++) if (ones[c * bits + byte * 8 + bit] * 2 > sizes[c]) v |= 1 << bit;
      out[c * DESCRIPTOR_BYTES + byte] = v;
    }
  }
  return out;
}
