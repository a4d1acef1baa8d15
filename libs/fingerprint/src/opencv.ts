/* OpenCV (WebAssembly) loader shared by every stage. The module is loaded once per process. */

/** The opencv-js module. Its bundled typings do not match the 4.12 runtime, so it is used untyped. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Cv = any;

let loading: Promise<{ cv: Cv }> | undefined;

/**
 * Resolves to `{ cv }`, never to the module itself: the module carries its own `.then`, and awaiting it
 * directly hangs forever.
 */
export function loadOpenCv(): Promise<{ cv: Cv }> {
  if (!loading) {
    loading = new Promise((resolve) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod: Cv = require('@techstark/opencv-js');
      if (mod.Mat) {
        resolve({ cv: mod });
        return;
      }
      mod.onRuntimeInitialized = () => resolve({ cv: mod });
    });
  }
  return loading;
}

/** Anything with a wasm-side allocation to release. */
interface Deletable {
  delete(): void;
}

/** Runs `fn` with a tracker and deletes every registered Mat/vector afterwards, also on throw. */
export function withMats<T>(fn: (track: <M extends Deletable>(m: M) => M) => T): T {
  const owned: Deletable[] = [];
  const track = <M extends Deletable>(m: M): M => {
    owned.push(m);
    return m;
  };
  try {
    return fn(track);
  } finally {
    for (const m of owned) m.delete();
  }
}
