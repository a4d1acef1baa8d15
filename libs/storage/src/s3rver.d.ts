// s3rver 3 ships no type declarations; this covers the part testing.ts uses.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    resetOnClose?: boolean;
  }

  class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }

  export = S3rver;
}

declare module 's3rver/lib/stores/filesystem' {
  /** The folder store behind s3rver; testing.ts serialises its writes (see serialiseS3rverWrites). */
  class FilesystemStore {
    constructor(rootDirectory: string);
  }

  export = FilesystemStore;
}
