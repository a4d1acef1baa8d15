export * from './envelope';
export * from './errors';
export * from './params';
export * from './quote';
export * from './render';
export { escapeXml, renderXml, xmlName } from './xml';
