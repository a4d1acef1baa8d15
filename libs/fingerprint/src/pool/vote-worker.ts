import { parentPort, workerData } from 'node:worker_threads';
import { voteLists } from '../posting-lists';
import type { VoteJob } from './vote-thread';
import { VOTE_DONE, VOTE_FAILED } from './vote-thread';

/** Reads the lists of one vote at a time into the shared output (VoteThread), then flags the calling thread. */
const control = new Int32Array(workerData.control as SharedArrayBuffer);

parentPort!.on('message', (job: VoteJob) => {
  let state = VOTE_DONE;
  try {
    const views = job.chunks.map((buffer, c) => new Uint8Array(buffer, job.chunkStarts[c], job.chunkLengths[c]));
    new Float64Array(job.output, 0, job.slots).set(voteLists({ ...job, data: job.chunkOfList.map((c) => views[c]) }, job.slots));
  } catch {
    state = VOTE_FAILED;
  }
  Atomics.store(control, 0, state);
  Atomics.notify(control, 0);
});
parentPort!.postMessage('ready');
