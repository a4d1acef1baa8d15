/** The slice of the WebAssembly API used here (this project's TypeScript libraries carry no DOM typings). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

const WASM_PAGE = 65536;

/** A kernel's exported memory, as far as its callers use it. */
export interface KernelMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** A kernel's exports, compiled and instantiated synchronously: allowed for modules this small, and keeps callers synchronous. */
export function instantiateKernel<T>(base64: string): T {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  return new wasm.Instance(new wasm.Module(Buffer.from(base64, 'base64'))).exports as T;
}

/** Grows `memory` to hold at least `bytes`. */
export function ensureMemory(memory: KernelMemory, bytes: number): void {
  const missing = bytes - memory.buffer.byteLength;
  if (missing > 0) memory.grow(Math.ceil(missing / WASM_PAGE));
}
