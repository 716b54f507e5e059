/**
 * The numbered-migration convention of this project's Durable Objects, for objects whose storage is tables and small
 * state rows (the politeness gate, the rate limiter; the run object keeps its own list in run/migrations.ts, which
 * also upgrades strategy state). Each object class has an append-only list; the version its storage has reached is
 * kept in its `kv` table under `schema`, and every later change is applied once, in order, in one transaction, when
 * an instance first opens its storage. Code above the storage then only ever sees the current shape.
 */

export interface ObjectMigration {
  /** Never reused: a deployed version number keeps its meaning. */
  version: number;
  /** What changed, for a reader of the list. */
  change: string;
  /** Statements that add or change tables; each safe on storage made before this list existed (IF NOT EXISTS). */
  tables?: string[];
  /** Rewrites stored rows into their new shape; only run on storage that held something before (version > 0 or legacy tables). */
  rows?: (sql: SqlStorage) => void;
}

/** The version the list reaches. */
export const latestVersion = (migrations: readonly ObjectMigration[]) => migrations[migrations.length - 1]?.version ?? 0;

/**
 * Brings an object's storage to the list's latest version. Storage written before the object had a list (tables but
 * no `kv`) counts as version 0: every statement is written to be a no-op on what such storage already holds.
 * @example applyMigrations(ctx.storage, GATE_MIGRATIONS) // in the object's constructor, before any table is read
 */
export const applyMigrations = (storage: DurableObjectStorage, migrations: readonly ObjectMigration[]): void => {
  const { sql } = storage;
  sql.exec('CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const stored = Number(sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = 'schema'").toArray()[0]?.value ?? 0);
  const latest = latestVersion(migrations);
  if (stored >= latest) return;
  storage.transactionSync(() => {
    for (const m of migrations.filter((m) => m.version > stored)) {
      for (const statement of m.tables ?? []) sql.exec(statement);
      m.rows?.(sql);
    }
    sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('schema', ?)", String(latest));
  });
};
