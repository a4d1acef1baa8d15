export * from './basic';
export * from './passwords';
export * from './signature';
export * from './nonce-store';
export * from './rate-limit';
export * from './api-keys';
export * from './api-key-seed';
