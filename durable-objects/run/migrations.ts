/**
 * One change to how a run is stored. A run stored at a lower version gets every later change, in order, once: when
 * its object first opens its storage (RunStore's constructor). The version reached is kept in the `kv` table, so the
 * code above the store only ever sees the current shape.
 */
export interface RunMigration {
  version: number;
  /** What changed, for a reader of this list. */
  change: string;
  /** Statements that add or change tables. */
  tables?: string[];
  /**
   * The strategy state is brought to its strategy's current shape (the state after the last step and every
   * checkpoint's), by the strategy itself: its `upgradeState` (src/engine/types.ts). Storage knows no strategy's state.
   */
  upgradesState?: true;
}

/** A stored state of a run of `mode` in the shape its strategy reads now; any state it does not recognise as it is. */
export type StateUpgrade = (mode: string, state: unknown) => unknown;

/** Append only: a deployed version number never changes meaning. */
export const RUN_MIGRATIONS: readonly RunMigration[] = [
  {
    version: 1,
    change: 'the run: one meta row and the append-only event log',
    tables: ['CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL)'],
  },
  {
    version: 2,
    change: "the request's context apart from the meta row, in pieces (a SQLite value holds at most 2 MB)",
    tables: ['CREATE TABLE IF NOT EXISTS context_pieces (n INTEGER PRIMARY KEY, piece TEXT NOT NULL)'],
  },
  {
    version: 3,
    change: 'the evidence the run received (one row per distinct request, bodies content-addressed), and the state after each step so a fork continues where its parent was',
    tables: [
      'CREATE TABLE IF NOT EXISTS evidence (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, request TEXT NOT NULL, hash TEXT, error TEXT)',
      'CREATE TABLE IF NOT EXISTS evidence_bodies (hash TEXT NOT NULL, n INTEGER NOT NULL, piece TEXT NOT NULL, PRIMARY KEY (hash, n))',
      'CREATE TABLE IF NOT EXISTS checkpoints (step INTEGER PRIMARY KEY, last_event INTEGER NOT NULL, state TEXT, usage TEXT NOT NULL)',
    ],
  },
  {
    version: 4,
    change: "an HQA agent's state keeps its recipe, scope and closed-book switch: one stored without them is a hybrid agent of our recipe",
    upgradesState: true,
  },
  {
    version: 5,
    change: 'finished tool calls kept by key as each ends, so a step of parallel calls repeated after a crash runs none of them twice',
    tables: ['CREATE TABLE IF NOT EXISTS tool_results (key TEXT PRIMARY KEY, result TEXT NOT NULL)'],
  },
];

export const RUN_SCHEMA_VERSION = RUN_MIGRATIONS[RUN_MIGRATIONS.length - 1].version;

/** Rewrites the strategy state in the meta row and in every checkpoint, as the run's strategy upgrades it. */
const rewriteStates = (sql: SqlStorage, upgradeState: StateUpgrade) => {
  const meta = sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = 'meta'").toArray()[0]?.value;
  if (!meta) return;
  const parsed = JSON.parse(meta) as { state?: unknown; request?: { mode?: string } };
  const mode = parsed.request?.mode ?? '';
  const upgrade = (state: unknown) => upgradeState(mode, state);
  if (parsed.state !== undefined) sql.exec("UPDATE kv SET value = ? WHERE key = 'meta'", JSON.stringify({ ...parsed, state: upgrade(parsed.state) }));
  for (const row of sql.exec<{ step: number; state: string }>('SELECT step, state FROM checkpoints WHERE state IS NOT NULL').toArray()) {
    sql.exec('UPDATE checkpoints SET state = ? WHERE step = ?', JSON.stringify(upgrade(JSON.parse(row.state))), row.step);
  }
};

/**
 * Brings the run's storage to RUN_SCHEMA_VERSION in one transaction, a strategy's state through `upgradeState`. A new
 * object's storage holds no run yet, so it only gets the tables.
 */
export const migrate = (storage: DurableObjectStorage, upgradeState: StateUpgrade): void => {
  const { sql } = storage;
  sql.exec('CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const stored = Number(sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = 'schema'").toArray()[0]?.value ?? 0);
  if (stored >= RUN_SCHEMA_VERSION) return;
  storage.transactionSync(() => {
    for (const m of RUN_MIGRATIONS.filter((m) => m.version > stored)) {
      for (const statement of m.tables ?? []) sql.exec(statement);
      if (m.upgradesState && stored > 0) rewriteStates(sql, upgradeState);
    }
    sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('schema', ?)", String(RUN_SCHEMA_VERSION));
  });
};
