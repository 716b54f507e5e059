/** Splits a migration file into statements (`;` at the end of a line, `--` comments dropped). */
export const schemaStatements = (sql: string): string[] =>
  sql
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);

/** `ALTER TABLE … ADD COLUMN` has no `IF NOT EXISTS` in SQLite: a second run fails with "duplicate column name". */
const ADD_COLUMN = /^ALTER\s+TABLE\s+\S+\s+ADD\s+COLUMN\b/i;

/**
 * Applies a migration's statements once per database per isolate, on first use, so a fresh local D1 needs no
 * migration step (the statements are `IF NOT EXISTS`; an added column that is already there counts as done).
 * A failure is forgotten, so the next call tries again.
 *
 * @example
 * const ensureTable = onFirstUse(schema); // schema: the text of migrations/0004_runs.sql
 * await ensureTable(env.DB);
 */
export const onFirstUse = (sql: string) => {
  const ready = new WeakMap<D1Database, Promise<void>>();
  const statements = schemaStatements(sql);
  const apply = async (db: D1Database) => {
    // One batch per run of statements without an added column, since a batch stops at its first error.
    for (let i = 0; i < statements.length; ) {
      if (ADD_COLUMN.test(statements[i])) {
        await db
          .prepare(statements[i++])
          .run()
          .catch((err) => {
            if (!/duplicate column/i.test(String(err))) throw err;
          });
        continue;
      }
      let j = i;
      while (j < statements.length && !ADD_COLUMN.test(statements[j])) j++;
      await db.batch(statements.slice(i, j).map((s) => db.prepare(s)));
      i = j;
    }
  };
  return (db: D1Database): Promise<void> => {
    let p = ready.get(db);
    if (!p) {
      p = apply(db).catch((err) => {
        ready.delete(db);
        throw err;
      });
      ready.set(db, p);
    }
    return p;
  };
};
