export * from './accounts.repository';
export * from './images.repository';
