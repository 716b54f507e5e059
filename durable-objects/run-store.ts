import type { EventInput, RunEvent, RunRequest, RunStatus, Usage } from '../src/engine/types';
import { emptyUsage } from '../src/engine/usage';

const SCHEMA_VERSION = '2';
/**
 * A SQLite value in a Durable Object holds at most 2 MB, while a request's context may be 16 MB, so the
 * context is stored apart from the meta row, in pieces. 400,000 characters stay under 2 MB even as 4-byte UTF-8.
 */
const CONTEXT_PIECE_CHARS = 400_000;

export interface RunMeta {
  runId: string;
  request: RunRequest;
  status: RunStatus;
  /** Strategy state after the last finished step; absent until the strategy started. */
  state?: unknown;
  usage: Usage;
  steps: number;
  startedAt: number;
  finishedAt?: number;
  /** `key:` + a hash of the API key that made the run, or `open` (see src/engine/run-index.ts). */
  owner?: string;
}

/**
 * The run's SQLite: one row of metadata and the append-only event log. Events and the state that
 * produced them are written in one transaction, so after a crash both are there or neither is.
 */
export class RunStore {
  constructor(private readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    sql.exec('CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const version = sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = 'schema'").toArray()[0]?.value;
    if (version !== SCHEMA_VERSION) {
      sql.exec('CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL)');
      sql.exec('CREATE TABLE IF NOT EXISTS context_pieces (n INTEGER PRIMARY KEY, piece TEXT NOT NULL)');
      sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('schema', ?)", SCHEMA_VERSION);
    }
  }

  /** The context is read once per instance: it does not change, and it can be megabytes. */
  private context: Record<string, unknown> | undefined | null = null;

  meta(): RunMeta | undefined {
    const raw = this.storage.sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = 'meta'").toArray()[0]?.value;
    if (!raw) return undefined;
    const meta = JSON.parse(raw) as RunMeta;
    const context = this.readContext();
    if (context) meta.request = { ...meta.request, context };
    return meta;
  }

  create(runId: string, request: RunRequest, now: number, owner: string): RunMeta {
    const meta: RunMeta = { runId, request, status: 'queued', usage: emptyUsage(), steps: 0, startedAt: now, owner };
    this.storage.transactionSync(() => {
      if (request.context) {
        const text = JSON.stringify(request.context);
        for (let i = 0, n = 0; i < text.length; i += CONTEXT_PIECE_CHARS, n++) {
          this.storage.sql.exec('INSERT INTO context_pieces (n, piece) VALUES (?, ?)', n, text.slice(i, i + CONTEXT_PIECE_CHARS));
        }
      }
      this.writeMeta(meta);
    });
    this.context = request.context;
    return meta;
  }

  private readContext(): Record<string, unknown> | undefined {
    if (this.context !== null) return this.context;
    const pieces = this.storage.sql.exec<{ piece: string }>('SELECT piece FROM context_pieces ORDER BY n').toArray();
    this.context = pieces.length ? (JSON.parse(pieces.map((p) => p.piece).join('')) as Record<string, unknown>) : undefined;
    return this.context;
  }

  /** Appends events and saves the meta atomically; returns the stored events with their ids. */
  commit(meta: RunMeta, events: EventInput[], now: number, scrub: (s: string) => string): RunEvent[] {
    return this.storage.transactionSync(() => {
      let id = this.lastId();
      const stored: RunEvent[] = [];
      for (const e of events) {
        id += 1;
        const data = scrub(JSON.stringify(e.data));
        this.storage.sql.exec('INSERT INTO events (id, type, data, at) VALUES (?, ?, ?, ?)', id, e.type, data, now);
        stored.push({ id, type: e.type, data: JSON.parse(data), at: now } as RunEvent);
      }
      this.writeMeta(meta, scrub);
      return stored;
    });
  }

  eventsAfter(after: number): RunEvent[] {
    return this.storage.sql
      .exec<{ id: number; type: string; data: string; at: number }>('SELECT id, type, data, at FROM events WHERE id > ? ORDER BY id', after)
      .toArray()
      .map((r) => ({ id: r.id, type: r.type, data: JSON.parse(r.data), at: r.at }) as RunEvent);
  }

  lastId(): number {
    return this.storage.sql.exec<{ id: number | null }>('SELECT MAX(id) AS id FROM events').toArray()[0]?.id ?? 0;
  }

  private writeMeta(meta: RunMeta, scrub: (s: string) => string = (s) => s) {
    const { context: _stored, ...request } = meta.request;
    const row = { ...meta, request };
    this.storage.sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('meta', ?)", scrub(JSON.stringify(row)));
  }
}
