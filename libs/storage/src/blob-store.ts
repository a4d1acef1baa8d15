export interface BlobStore {
  readonly kind: 's3' | 'folder';
  put(key: string, data: Buffer, contentType?: string): Promise<void>;
  /** null when the key is absent. */
  get(key: string): Promise<Buffer | null>;
  exists(key: string): Promise<boolean>;
  /** No error when the key is absent. */
  delete(key: string): Promise<void>;
  /** Deletes every key starting with `prefix` (a string prefix, as in S3) and returns how many were deleted. */
  deletePrefix(prefix: string): Promise<number>;
  /**
   * Every blob whose key starts with `prefix` (a string prefix, as in S3), in no particular order. Blobs written or
   * deleted while the listing runs may or may not appear; each one listed existed when it was seen.
   */
  list(prefix: string): AsyncIterable<BlobInfo>;
  /** Throws when the store is unreachable or unusable; for health checks. */
  ping(): Promise<void>;
}

export interface BlobInfo {
  key: string;
  size: number;
  /** When the blob was last written (the store's clock: the file's mtime, or S3's LastModified). */
  modifiedAt: Date;
}

export interface BlobStoreOptions {
  /** http(s)://host:port of an S3-compatible server; when set, the S3 store is used. */
  endpoint?: string;
  accessKey?: string;
  secretKey?: string;
  /** Default 'loupe'. */
  bucket?: string;
  /** Default 'us-east-1' (MinIO's default region). */
  region?: string;
  /** Folder store root is `<dataDir>/blobs`. Required when `endpoint` is not set. */
  dataDir?: string;
}
