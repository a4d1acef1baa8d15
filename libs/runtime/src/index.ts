export * from './config';
export * from './infrastructure';
export * from './queues';
export * from './accounts';
