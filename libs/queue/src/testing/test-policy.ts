import { classTablePolicy, type ConcurrencyClass } from '../policy';

/** The kinds this library's tests run: `ingest` and `delete` write, `search` reads; any other kind is refused. */
const TEST_CLASSES: Record<string, ConcurrencyClass> = { ingest: 'write', delete: 'write', search: 'read' };

export const TEST_POLICY = classTablePolicy((kind) => TEST_CLASSES[kind]);
