import type { Board, PublishedHold } from '../src/net/politeness/board';

/**
 * The status board's table, kept by the one politeness gate named `gate-status` (src/net/politeness/board.ts): one
 * row per gate that holds its host back, written by that gate when its hold changes. Rows whose hold has passed are
 * dropped as they are read, so the table stays as small as the number of hosts held at once.
 */
export class GateBoard {
  constructor(private readonly sql: SqlStorage) {}

  publish(name: string, hold: { until: number; reason?: string }, now: number): void {
    if (!(hold.until > now)) {
      this.sql.exec('DELETE FROM board WHERE name = ?', name);
      return;
    }
    this.sql.exec('INSERT OR REPLACE INTO board (name, until, reason, at) VALUES (?, ?, ?, ?)', name, hold.until, hold.reason ?? null, now);
  }

  read(now: number): Board {
    this.sql.exec('DELETE FROM board WHERE until <= ?', now);
    const board: Board = {};
    for (const row of this.sql.exec<{ name: string; until: number; reason: string | null; at: number }>('SELECT name, until, reason, at FROM board')) {
      const hold: PublishedHold = { until: row.until, at: row.at };
      if (row.reason !== null) hold.reason = row.reason;
      board[row.name] = hold;
    }
    return board;
  }
}
