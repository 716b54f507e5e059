import { cutReason, type GateHold } from './policy';

/**
 * The gates' status board, which /healthz reads instead of asking every gate. Each politeness gate publishes its hold
 * (a Retry-After or maxlag still running) to one gate object of the same class, named {@link BOARD_NAME}, whenever the
 * hold changes; /healthz reads that object's table at most once a second per isolate, and concurrent probes share
 * the read. So a probe costs no round trip to the gates, which under load queue hundreds of runs' requests, and
 * answers as fast with 200 runs in flight as with none.
 */

export const BOARD_NAME = 'gate-status';

/** A hold as a gate published it: until when, why, and when it was published (to cut it to the maximum in force). */
export interface PublishedHold {
  until: number;
  reason?: string;
  at: number;
}

/** The board's rows by gate name (the Durable Object name of each gate); holds that have passed are left out. */
export type Board = Record<string, PublishedHold>;

/** What the board object answers (a PolitenessGate named BOARD_NAME). */
export interface BoardBackend {
  /** Keeps a gate's hold (one that has passed removes its row). */
  publish(name: string, hold: { until: number; reason?: string }): Promise<void>;
  /** Every hold still running. */
  board(): Promise<Board>;
}

/** How old a board an isolate may answer from: "refreshed within seconds". */
export const BOARD_REFRESH_MS = 1_000;
/** How long a probe waits for the board before it answers from the last board it read. */
const BOARD_WAIT_MS = 500;

interface Seen {
  at: number;
  board: Board;
  reading?: Promise<Board>;
}

/** Per namespace (one per deployment; tests have several), what this isolate last read. */
const seen = new WeakMap<object, Seen>();

const bounded = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([p.catch(() => fallback), late]).finally(() => clearTimeout(timer));
};

/**
 * The board, at most BOARD_REFRESH_MS old. A read already on its way is shared; one that does not answer within half a
 * second leaves the last board read (or none) in its place.
 */
export const readBoard = (ns: { idFromName(name: string): DurableObjectId; get(id: DurableObjectId): BoardBackend }, now = Date.now()): Promise<Board> => {
  const last = seen.get(ns);
  if (last && now - last.at < BOARD_REFRESH_MS) return Promise.resolve(last.board);
  if (last?.reading) return last.reading;
  const entry: Seen = last ?? { at: 0, board: {} };
  const reading = bounded(ns.get(ns.idFromName(BOARD_NAME)).board(), BOARD_WAIT_MS, entry.board).then((board) => {
    Object.assign(entry, { at: Date.now(), board, reading: undefined });
    return board;
  });
  entry.reading = reading;
  seen.set(ns, entry);
  return reading;
};

/**
 * How much longer a gate holds its host back by the board, cut to the maximum in force (a hold published under a
 * longer POLITENESS_MAX_BACKOFF_MS ends `maxBackoffMs` after it was published, and says so).
 */
export const holdOf = (board: Board, name: string, maxBackoffMs: number, now = Date.now()): GateHold => {
  const row = board[name];
  if (!row) return { ms: 0 };
  const limit = row.at + maxBackoffMs;
  const until = Math.min(row.until, limit);
  const ms = until - now;
  if (ms <= 0) return { ms: 0 };
  return row.until > limit ? { ms, reason: cutReason(row.reason, maxBackoffMs) } : { ms, ...(row.reason ? { reason: row.reason } : {}) };
};
