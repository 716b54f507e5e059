import type { ObjectMigration } from './object-migrations';

/**
 * How a politeness gate's storage has changed (applied by object-migrations.ts). Append only. Gates from before this
 * list have `gate` and `cached_answers` already; their statements are no-ops there, and they start at version 0.
 */
export const GATE_MIGRATIONS: readonly ObjectMigration[] = [
  {
    version: 1,
    change: "the gate's state (back-off, the minute's spending, the request budget) in one row",
    tables: ['CREATE TABLE IF NOT EXISTS gate (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL)'],
  },
  {
    version: 2,
    change: 'the cache of good answers, sized in UTF-8 bytes (an older table `answers` counted characters and is dropped: a cache may be)',
    tables: [
      'DROP TABLE IF EXISTS answers',
      'CREATE TABLE IF NOT EXISTS cached_answers (key TEXT PRIMARY KEY, body TEXT NOT NULL, bytes INTEGER NOT NULL, expires INTEGER NOT NULL, used INTEGER NOT NULL)',
    ],
  },
  {
    version: 3,
    change: "the request budget as a token bucket: a gate that counted requests per second and sent any this last minute starts with an empty bucket (it refills through the minute), so an upgrade never adds a burst to a minute's requests",
    rows: (sql) => {
      const row = sql.exec<{ state: string }>('SELECT state FROM gate WHERE id = 1').toArray()[0];
      if (!row) return;
      const state = JSON.parse(row.state) as { sent?: Array<[number, number]>; bucket?: unknown };
      if (!state.sent) return;
      const now = Date.now();
      if (state.sent.some(([at, n]) => n > 0 && at > now - 61_000)) state.bucket = { tokens: 0, at: now };
      delete state.sent;
      sql.exec('UPDATE gate SET state = ? WHERE id = 1', JSON.stringify(state));
    },
  },
  {
    version: 4,
    change: "the status board (kept by the one gate named gate-status): each gate's hold, published when it changes, so /healthz reads one row per gate instead of asking every gate",
    tables: ['CREATE TABLE IF NOT EXISTS board (name TEXT PRIMARY KEY, until INTEGER NOT NULL, reason TEXT, at INTEGER NOT NULL)'],
  },
];
