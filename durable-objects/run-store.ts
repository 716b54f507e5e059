import type { EvidenceRecord, RecordedRequest, RecordedResponse } from '../src/evidence/recording';
import type { EventInput, RunEvent, RunRequest, RunStatus, Usage } from '../src/engine/types';
import { emptyUsage } from '../src/engine/usage';
import { migrate, type StateUpgrade } from './run/migrations';
import { fitEvent, storable } from './stored-value';

/** Recorded evidence bodies are stored in pieces too: one page read or SPARQL result can exceed a value's 2 MB. */
const BODY_PIECE_CHARS = 400_000;
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
  /** `key:` + a hash of the API key that made the run, or `open` (see src/storage/run-index.ts). */
  owner?: string;
  /** The run this one was forked from, and after which of its steps. */
  parent?: { runId: string; fromStep: number };
  /** Runs forked from this one, oldest first. */
  forks?: Array<{ runId: string; fromStep: number }>;
  /** Set when the run's evidence is served from an uploaded archive. */
  replay?: { archiveId: string };
  /** When the first piece of the answer reached the run's streams (or the answer itself, when it was not streamed). */
  firstAnswerAt?: number;
}

/** Where a fork may start: the state after a step and the last event that step stored. */
export interface Checkpoint {
  step: number;
  lastEventId: number;
  state: unknown;
  usage: Usage;
}

/** A stored event exactly as written (data as its stored JSON text), so a fork copies it byte for byte. */
export interface RawEvent {
  id: number;
  type: string;
  data: string;
  at: number;
}

/**
 * The run's SQLite: one row of metadata and the append-only event log. Events and the state that
 * produced them are written in one transaction, so after a crash both are there or neither is.
 * Storage written by older code is brought to the current shape when the store opens (run/migrations.ts).
 */
export class RunStore {
  /** `upgradeState`: how a strategy state of an older shape is brought to its strategy's current one (on migration). */
  constructor(
    private readonly storage: DurableObjectStorage,
    upgradeState: StateUpgrade,
  ) {
    migrate(storage, upgradeState);
  }

  /** The context is read once per instance: it does not change, and it can be megabytes. */
  private context: Record<string, unknown> | undefined | null = null;
  /**
   * The meta row as this instance last read or wrote it. The instance is the row's only writer, so the text in
   * SQLite cannot change behind its back; reading it again at every step was the largest CPU cost of a step
   * (the first SQLite read of each alarm). Set only once a write's transaction has committed.
   */
  private metaText: string | undefined;

  meta(): RunMeta | undefined {
    this.metaText ??= this.storage.sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = 'meta'").toArray()[0]?.value;
    const raw = this.metaText;
    if (!raw) return undefined;
    // Parsed afresh each time: callers change the object they are given.
    const meta = JSON.parse(raw) as RunMeta;
    const context = this.readContext();
    if (context) meta.request = { ...meta.request, context };
    return meta;
  }

  create(runId: string, request: RunRequest, now: number, owner: string): RunMeta {
    const meta: RunMeta = { runId, request, status: 'queued', usage: emptyUsage(), steps: 0, startedAt: now, owner };
    this.metaText = this.storage.transactionSync(() => {
      this.writeContext(request);
      return this.writeMeta(meta);
    });
    this.context = request.context;
    return meta;
  }

  private writeContext(request: RunRequest) {
    if (!request.context) return;
    const text = JSON.stringify(request.context);
    for (let i = 0, n = 0; i < text.length; i += CONTEXT_PIECE_CHARS, n++) {
      this.storage.sql.exec('INSERT INTO context_pieces (n, piece) VALUES (?, ?)', n, text.slice(i, i + CONTEXT_PIECE_CHARS));
    }
  }

  private readContext(): Record<string, unknown> | undefined {
    if (this.context !== null) return this.context;
    const pieces = this.storage.sql.exec<{ piece: string }>('SELECT piece FROM context_pieces ORDER BY n').toArray();
    this.context = pieces.length ? (JSON.parse(pieces.map((p) => p.piece).join('')) as Record<string, unknown>) : undefined;
    return this.context;
  }

  /**
   * Appends events and saves the meta atomically; returns the stored events with their ids. With `checkpoint`, the
   * state after this step is kept as well (a fork can start there).
   */
  commit(meta: RunMeta, events: EventInput[], now: number, scrub: (s: string) => string, checkpoint = false): RunEvent[] {
    const { stored, text } = this.storage.transactionSync(() => {
      let id = this.lastId();
      const stored: RunEvent[] = [];
      for (const e of events) {
        id += 1;
        // Cut down to fit one stored value, with a note, rather than fail the run on SQLITE_TOOBIG.
        const data = fitEvent(e.data, (v) => scrub(JSON.stringify(v)));
        this.storage.sql.exec('INSERT INTO events (id, type, data, at) VALUES (?, ?, ?, ?)', id, e.type, data, now);
        stored.push({ id, type: e.type, data: JSON.parse(data), at: now } as RunEvent);
      }
      const text = this.writeMeta(meta, scrub);
      if (checkpoint) {
        this.storage.sql.exec(
          'INSERT OR REPLACE INTO checkpoints (step, last_event, state, usage) VALUES (?, ?, ?, ?)',
          meta.steps,
          id,
          meta.state === undefined ? null : storable(scrub(JSON.stringify(meta.state)), 'state'),
          JSON.stringify(meta.usage),
        );
      }
      return { stored, text };
    });
    this.metaText = text;
    return stored;
  }

  /** Steps a fork may start after: [step, last event id] in order. */
  checkpoints(): Array<{ step: number; lastEventId: number }> {
    return this.storage.sql
      .exec<{ step: number; last_event: number }>('SELECT step, last_event FROM checkpoints ORDER BY step')
      .toArray()
      .map((r) => ({ step: r.step, lastEventId: r.last_event }));
  }

  checkpoint(step: number): Checkpoint | undefined {
    const r = this.storage.sql
      .exec<{ step: number; last_event: number; state: string | null; usage: string }>('SELECT step, last_event, state, usage FROM checkpoints WHERE step = ?', step)
      .toArray()[0];
    return r && { step: r.step, lastEventId: r.last_event, state: r.state === null ? undefined : JSON.parse(r.state), usage: JSON.parse(r.usage) };
  }

  rawEventsUpTo(lastId: number): RawEvent[] {
    return this.storage.sql
      .exec<{ id: number; type: string; data: string; at: number }>('SELECT id, type, data, at FROM events WHERE id <= ? ORDER BY id', lastId)
      .toArray()
      .map((r) => ({ id: r.id, type: r.type, data: r.data, at: r.at }));
  }

  /**
   * A fork's start: its inherited events copied as stored (same ids, data text and times), the parent's checkpoints
   * up to the fork point, and the meta — in one transaction.
   */
  seed(meta: RunMeta, events: RawEvent[], checkpoints: Checkpoint[]): void {
    this.metaText = this.storage.transactionSync(() => {
      this.writeContext(meta.request);
      for (const e of events) this.storage.sql.exec('INSERT INTO events (id, type, data, at) VALUES (?, ?, ?, ?)', e.id, e.type, e.data, e.at);
      for (const c of checkpoints) {
        this.storage.sql.exec(
          'INSERT INTO checkpoints (step, last_event, state, usage) VALUES (?, ?, ?, ?)',
          c.step,
          c.lastEventId,
          c.state === undefined ? null : JSON.stringify(c.state),
          JSON.stringify(c.usage),
        );
      }
      return this.writeMeta(meta);
    });
    this.context = meta.request.context;
  }

  /** Updates only the meta row (a fork was added). */
  saveMeta(meta: RunMeta): void {
    this.metaText = this.writeMeta(meta);
  }

  /** Stores one recorded request → response; a request seen before keeps its first response. Body already scrubbed. */
  record(key: string, request: string, response: { hash: string; body: string } | { error: string }): void {
    this.storage.transactionSync(() => {
      const seen = this.storage.sql.exec('SELECT 1 FROM evidence WHERE key = ?', key).toArray().length > 0;
      if (seen) return;
      if ('hash' in response) {
        const known = this.storage.sql.exec('SELECT 1 FROM evidence_bodies WHERE hash = ? LIMIT 1', response.hash).toArray().length > 0;
        if (!known) {
          for (let i = 0, n = 0; i < response.body.length || n === 0; i += BODY_PIECE_CHARS, n++) {
            this.storage.sql.exec('INSERT INTO evidence_bodies (hash, n, piece) VALUES (?, ?, ?)', response.hash, n, response.body.slice(i, i + BODY_PIECE_CHARS));
          }
        }
        this.storage.sql.exec('INSERT INTO evidence (key, request, hash) VALUES (?, ?, ?)', key, request, response.hash);
      } else {
        this.storage.sql.exec('INSERT INTO evidence (key, request, error) VALUES (?, ?, ?)', key, request, response.error);
      }
    });
  }

  /** The recorded evidence in the order it was first received. */
  *records(): Generator<EvidenceRecord> {
    const rows = this.storage.sql.exec<{ key: string; request: string; hash: string | null; error: string | null }>('SELECT key, request, hash, error FROM evidence ORDER BY seq').toArray();
    for (const r of rows) {
      let response: RecordedResponse;
      if (r.hash !== null) {
        const pieces = this.storage.sql.exec<{ piece: string }>('SELECT piece FROM evidence_bodies WHERE hash = ? ORDER BY n', r.hash).toArray();
        response = { body: JSON.parse(pieces.map((p) => p.piece).join('')) };
      } else response = { error: JSON.parse(r.error ?? '{}') };
      yield { key: r.key, request: JSON.parse(r.request) as RecordedRequest, response };
    }
  }

  /** A finished tool call kept by its key (src/engine/context.ts, ToolResultJournal), as stored JSON text. */
  toolResult(key: string): string | undefined {
    return this.storage.sql.exec<{ result: string }>('SELECT result FROM tool_results WHERE key = ? LIMIT 1', key).toArray()[0]?.result;
  }

  /** Keeps a finished tool call at once, before the step that made it is stored: a repeated step reads it back. */
  keepToolResult(key: string, result: string): void {
    this.storage.sql.exec('INSERT OR REPLACE INTO tool_results (key, result) VALUES (?, ?)', key, storable(result, 'state'));
  }

  eventsAfter(after: number): RunEvent[] {
    return this.storage.sql
      .exec<{ id: number; type: string; data: string; at: number }>('SELECT id, type, data, at FROM events WHERE id > ? ORDER BY id', after)
      .toArray()
      .map((r) => ({ id: r.id, type: r.type, data: JSON.parse(r.data), at: r.at }) as RunEvent);
  }

  /** The first event after `after` as stored (its data still JSON text): one row, for a stream catching up. */
  nextAfter(after: number): { id: number; type: string; data: string } | undefined {
    return this.storage.sql.exec<{ id: number; type: string; data: string }>('SELECT id, type, data FROM events WHERE id > ? ORDER BY id LIMIT 1', after).toArray()[0];
  }

  lastId(): number {
    return this.storage.sql.exec<{ id: number | null }>('SELECT MAX(id) AS id FROM events').toArray()[0]?.id ?? 0;
  }

  /** Writes the meta row (without the context, stored apart) and returns its text. */
  private writeMeta(meta: RunMeta, scrub: (s: string) => string = (s) => s): string {
    const { context: _stored, ...request } = meta.request;
    const text = storable(scrub(JSON.stringify({ ...meta, request })), 'state');
    this.storage.sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('meta', ?)", text);
    return text;
  }
}
