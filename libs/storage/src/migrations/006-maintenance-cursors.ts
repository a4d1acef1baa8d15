import type { Migration } from '..';

/**
 * Where periodic cleanup got to, shared by every process that sweeps (e.g. the last overlay hour deleted), so a
 * sweep continues from the previous one instead of rescanning, whichever process ran it.
 */
export const maintenanceCursors: Migration = {
  id: 6,
  name: 'maintenance-cursors',
  up: `
    CREATE TABLE maintenance_cursors (
      name        text PRIMARY KEY,
      value       bigint NOT NULL,
      updated_at  timestamptz NOT NULL DEFAULT now()
    );
  `,
};
