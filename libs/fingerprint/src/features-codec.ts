import { DESCRIPTOR_BYTES } from './hamming';
import type { Features } from './types';

/** "LFP1": Loupe FingerPrint, layout version 1. */
const MAGIC = 0x3150464c;
const HEADER_BYTES = 20;

/**
 * Layout (little endian): magic u32, width u32, height u32, count u32, hasMirror u32, then xy f32[2n],
 * meta f32[4n], descriptors u8[32n], then the mirrored block in the same layout when hasMirror is 1.
 * About 56 bytes per keypoint: 56 kB for a 1000-point image.
 */
export function serializeFeatures(f: Features): Buffer {
  const parts = [encodeOne(f, f.mirrored !== undefined)];
  if (f.mirrored) parts.push(encodeOne(f.mirrored, false));
  return Buffer.concat(parts);
}

export function deserializeFeatures(b: Buffer): Features {
  const { features, end } = decodeOne(b, 0);
  if (features.hasMirror) features.value.mirrored = decodeOne(b, end).features.value;
  return features.value;
}

function encodeOne(f: Features, hasMirror: boolean): Buffer {
  const n = f.count;
  const out = Buffer.alloc(HEADER_BYTES + n * 8 + n * 16 + n * DESCRIPTOR_BYTES);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(f.width, 4);
  out.writeUInt32LE(f.height, 8);
  out.writeUInt32LE(n, 12);
  out.writeUInt32LE(hasMirror ? 1 : 0, 16);
  let o = HEADER_BYTES;
  Buffer.from(f.xy.buffer, f.xy.byteOffset, n * 8).copy(out, o);
  o += n * 8;
  Buffer.from(f.meta.buffer, f.meta.byteOffset, n * 16).copy(out, o);
  o += n * 16;
  Buffer.from(f.descriptors.buffer, f.descriptors.byteOffset, n * DESCRIPTOR_BYTES).copy(out, o);
  return out;
}

function decodeOne(b: Buffer, start: number): { features: { value: Features; hasMirror: boolean }; end: number } {
  if (b.length < start + HEADER_BYTES || b.readUInt32LE(start) !== MAGIC) throw new Error('Not a serialized Features buffer');
  const width = b.readUInt32LE(start + 4);
  const height = b.readUInt32LE(start + 8);
  const count = b.readUInt32LE(start + 12);
  const hasMirror = b.readUInt32LE(start + 16) === 1;
  const end = start + HEADER_BYTES + count * (8 + 16 + DESCRIPTOR_BYTES);
  if (b.length < end) throw new Error('Truncated Features buffer');
  // Copies: the Buffer's offset may not be 4-byte aligned, which Float32Array views require.
  let o = start + HEADER_BYTES;
  const xy = new Float32Array(new Uint8Array(b.subarray(o, o + count * 8)).buffer);
  o += count * 8;
  const meta = new Float32Array(new Uint8Array(b.subarray(o, o + count * 16)).buffer);
  o += count * 16;
  const descriptors = new Uint8Array(b.subarray(o, o + count * DESCRIPTOR_BYTES));
  return { features: { value: { width, height, count, xy, meta, descriptors }, hasMirror }, end };
}
