export * from './accounts.repository';
export * from './images.repository';
export * from './match-index.repository';
export * from './color-metadata';
export * from './color.repository';
