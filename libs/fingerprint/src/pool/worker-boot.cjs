// Worker-thread entry. From the TypeScript sources it registers tsx, which a worker does not inherit from its parent's
// loader; from the compiled build (dist/, where the entry is pool-worker.js) there is nothing to register.
const { entry } = require('node:worker_threads').workerData;
if (entry.endsWith('.ts')) require('tsx/cjs/api').register();
require(entry);
