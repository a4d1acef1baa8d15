import { parentPort } from 'node:worker_threads';
import type { ThreadTask } from './thread-pool';

export interface TaskRequest {
  id: number;
  /** Module exporting the task under `name` (see defineTask). */
  module: string;
  name: string;
  input: unknown;
}

export type TaskResponse = { id: number; output: unknown } | { id: number; error: string };

function taskOf(request: TaskRequest): ThreadTask<unknown, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const task = (require(request.module) as Record<string, ThreadTask<unknown, unknown> | undefined>)[request.name];
  if (!task || typeof task.run !== 'function') throw new Error(`${request.module} exports no task named ${request.name}.`);
  return task;
}

/** Runs one task at a time (the pool sends the next when this one answered); modules load once, on first use. */
parentPort!.on('message', async (request: TaskRequest) => {
  try {
    const output = await taskOf(request).run(request.input);
    parentPort!.postMessage({ id: request.id, output } satisfies TaskResponse);
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies TaskResponse);
  }
});
