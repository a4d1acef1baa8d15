/**
 * Injection tokens of the adapters bootstrap.ts builds from the configuration (the queue, the repositories, the blob
 * store): the collection services are Nest providers that receive them. Explicit tokens rather than types, because
 * the tests run without decorator metadata.
 */
export const JOB_QUEUE = Symbol('JOB_QUEUE');
export const IMAGE_REPOSITORY = Symbol('IMAGE_REPOSITORY');
export const COLOR_REPOSITORY = Symbol('COLOR_REPOSITORY');
export const BLOB_STORE = Symbol('BLOB_STORE');
