import schema from '../../migrations/0004_runs.sql';
import standaloneColumn from '../../migrations/0010_run_standalone_question.sql';
import { onFirstUse } from '../d1/schema';
import type { RunStatus } from '../engine/types';

/**
 * The D1 index behind GET /v1/runs. Each run's RunObject writes its own row (at start, when it starts running,
 * when it ends); the list route only reads. The run itself stays in its object: the index holds what a list shows.
 */

/** Owner of runs made while the API is open (no API_KEYS): an open server lists every run. */
export const OPEN_OWNER = 'open';

/** One row of GET /v1/runs. */
export interface RunSummary {
  runId: string;
  question: string;
  /** A chat's follow-up as the run answered it (made self-contained), beside `question` as asked; null otherwise. */
  standaloneQuestion: string | null;
  variant: string;
  mode: string;
  status: RunStatus;
  answer: string | null;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Null until the run has ended. */
  durationMs: number | null;
}

export interface RunPage {
  runs: RunSummary[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

interface Row {
  seq: number;
  run_id: string;
  question: string;
  standalone_question: string | null;
  variant: string;
  mode: string;
  status: string;
  answer: string | null;
  created_at: number;
  duration_ms: number | null;
}

/** A long answer is cut in the index (the run JSON has it whole). */
const MAX_INDEXED_ANSWER = 2_000;

/** Creates the table on first use (same SQL as migrations/0004 and 0010), so a fresh local database needs no migration step. */
const ensureTable = onFirstUse(`${schema}\n${standaloneColumn}`);

const clipAnswer = (answer: string | null | undefined) =>
  answer == null ? null : answer.length > MAX_INDEXED_ANSWER ? `${answer.slice(0, MAX_INDEXED_ANSWER)}…` : answer;

export const indexRunCreated = async (
  db: D1Database,
  run: { runId: string; owner: string; question: string; variant: string; mode: string; createdAt: number },
): Promise<void> => {
  await ensureTable(db);
  await db
    .prepare('INSERT OR IGNORE INTO runs (run_id, owner, question, variant, mode, status, answer, created_at, duration_ms) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, NULL)')
    .bind(run.runId, run.owner, run.question, run.variant, run.mode, 'queued', run.createdAt)
    .run();
};

export const indexRunStatus = async (
  db: D1Database,
  runId: string,
  update: { status: RunStatus; answer?: string | null; durationMs?: number | null; standaloneQuestion?: string | null },
): Promise<void> => {
  await ensureTable(db);
  await db
    .prepare('UPDATE runs SET status = ?, answer = COALESCE(?, answer), duration_ms = COALESCE(?, duration_ms), standalone_question = COALESCE(?, standalone_question) WHERE run_id = ?')
    .bind(update.status, clipAnswer(update.answer), update.durationMs ?? null, update.standaloneQuestion ?? null, runId)
    .run();
};

/**
 * The cursor names the last row of a page by its insertion order (SQLite rowid), which is stable when several runs
 * start in the same millisecond. Opaque to clients.
 */
export const encodeCursor = (seq: number): string => btoa(`runs:${seq}`).replace(/=+$/, '');

export const decodeCursor = (cursor: string): number | undefined => {
  try {
    const m = /^runs:(\d{1,15})$/.exec(atob(cursor));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
};

const toSummary = (r: Row): RunSummary => ({
  runId: r.run_id,
  question: r.question,
  standaloneQuestion: r.standalone_question ?? null,
  variant: r.variant,
  mode: r.mode,
  status: r.status as RunStatus,
  answer: r.answer,
  createdAt: r.created_at,
  durationMs: r.duration_ms,
});

/**
 * Recent runs, newest first. `owner` undefined lists every run (an open server); otherwise only that owner's.
 * Keyset paging on the insertion order, so a page is stable while new runs arrive.
 */
export const listRuns = async (db: D1Database, input: { owner?: string; limit: number; after?: number }): Promise<RunPage> => {
  await ensureTable(db);
  const where: string[] = [];
  const binds: unknown[] = [];
  if (input.owner !== undefined) {
    where.push('owner = ?');
    binds.push(input.owner);
  }
  if (input.after !== undefined) {
    where.push('rowid < ?');
    binds.push(input.after);
  }
  const sql =
    'SELECT rowid AS seq, run_id, question, standalone_question, variant, mode, status, answer, created_at, duration_ms FROM runs' +
    (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
    ' ORDER BY rowid DESC LIMIT ?';
  const { results } = await db.prepare(sql).bind(...binds, input.limit + 1).all<Row>();
  const rows = results.slice(0, input.limit);
  const last = rows.at(-1);
  return {
    runs: rows.map(toSummary),
    nextCursor: results.length > input.limit && last ? encodeCursor(last.seq) : null,
  };
};
