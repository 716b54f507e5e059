/** Splits a migration file into statements (`;` at the end of a line, `--` comments dropped). */
export const schemaStatements = (sql: string): string[] =>
  sql
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Applies a migration's statements once per database per isolate, on first use, so a fresh local D1 needs no
 * migration step (the statements are `IF NOT EXISTS`). A failure is forgotten, so the next call tries again.
 *
 * @example
 * const ensureTable = onFirstUse(schema); // schema: the text of migrations/0004_runs.sql
 * await ensureTable(env.DB);
 */
export const onFirstUse = (sql: string) => {
  const ready = new WeakMap<D1Database, Promise<void>>();
  return (db: D1Database): Promise<void> => {
    let p = ready.get(db);
    if (!p) {
      p = db
        .batch(schemaStatements(sql).map((s) => db.prepare(s)))
        .then(() => undefined)
        .catch((err) => {
          ready.delete(db);
          throw err;
        });
      ready.set(db, p);
    }
    return p;
  };
};
