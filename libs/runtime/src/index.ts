export * from './config';
export * from './infrastructure';
export * from './queues';
export * from './accounts';
export * from './logging';
export * from './metrics';
export * from './observability';
export * from './sweepers';
