// Worker-thread entry: TypeScript sources run through tsx, which a worker does not inherit from its parent's loader.
require('tsx/cjs/api').register();
require(require('node:worker_threads').workerData.entry);
