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
  /** Throws when the store is unreachable or unusable; for health checks. */
  ping(): Promise<void>;
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
