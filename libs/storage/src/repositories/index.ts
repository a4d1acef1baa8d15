export * from './accounts.repository';
export * from './images.repository';
export * from './match-index.repository';
export * from './color-metadata';
export * from './color.repository';
export * from './wine.repository';
export * from './public-index-api.repository';
export * from './public-index.repository';
