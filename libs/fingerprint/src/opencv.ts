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
      const mod: Cv = withoutProcessListeners(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        return require('@techstark/opencv-js');
      });
      if (mod.Mat) {
        resolve({ cv: mod });
        return;
      }
      mod.onRuntimeInitialized = () => resolve({ cv: mod });
    });
  }
  return loading;
}

/**
 * Runs `load` and removes every process listener it added. The Emscripten build of OpenCV installs an
 * `uncaughtException` listener that rethrows (Node then prints the line it was thrown from: the module's whole ~10 MB
 * source, into the log) and an `unhandledRejection` listener that aborts the wasm runtime. Neither belongs to a
 * library: the process keeps Node's own handling, and a crash prints a normal stack.
 */
export function withoutProcessListeners<T>(load: () => T): T {
  const before = new Map(process.eventNames().map((name) => [name, new Set(process.listeners(name as never))]));
  try {
    return load();
  } finally {
    for (const name of process.eventNames()) {
      const kept = before.get(name);
      for (const listener of process.listeners(name as never)) {
        if (!kept?.has(listener)) process.removeListener(name as never, listener);
      }
    }
  }
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
