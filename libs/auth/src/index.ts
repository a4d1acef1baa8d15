export * from './basic';
export * from './passwords';
