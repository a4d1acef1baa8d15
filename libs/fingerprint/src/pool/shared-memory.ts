import type { Features } from '../types';

/**
 * Copies of a search's large arrays in shared memory. A thread task's input crosses by structured clone, which copies
 * every plain typed array into the thread, once per task: a search sent its query's pixels and features with each of
 * its pixel checks, 13 MB of copies a search in the matching benchmark (placements alone 1.5 MB a task). An array over
 * a SharedArrayBuffer crosses as a view of the same memory, so what a search sends many times is copied once, here.
 * The arrays must not change afterwards: the threads read them while the caller goes on.
 */
export function sharedCopy(array: Float32Array): Float32Array;
/** A Node `Buffer` comes back as a plain Uint8Array (a Buffer over shared memory is deprecated). */
export function sharedCopy(array: Uint8Array): Uint8Array;
export function sharedCopy(array: Uint8Array | Float32Array): Uint8Array | Float32Array {
  if (array.buffer instanceof SharedArrayBuffer) return array;
  const memory = new SharedArrayBuffer(array.byteLength);
  const shared = array instanceof Float32Array ? new Float32Array(memory) : new Uint8Array(memory);
  shared.set(array);
  return shared;
}

/** `image` with its pixels in shared memory (`sharedCopy`); its other fields as they are. */
export function pixelsInSharedMemory<T extends { data: Uint8Array }>(image: T): T {
  return { ...image, data: sharedCopy(image.data) };
}

/** `features` with their arrays, and their mirror's, in shared memory (`sharedCopy`). */
export function featuresInSharedMemory(features: Features): Features {
  const { xy, meta, descriptors, mirrored } = features;
  return {
    ...features,
    xy: sharedCopy(xy),
    meta: sharedCopy(meta),
    descriptors: sharedCopy(descriptors),
    ...(mirrored && { mirrored: featuresInSharedMemory(mirrored) }),
  };
}
