import schema from '../../migrations/0009_mcp_calls.sql';
import { onFirstUse } from '../d1/schema';
import { sha256Hex } from '../text/sha256';

/**
 * Where a `notifications/cancelled` finds the run of the call it names. The server is stateless (docs/MCP.md): the
 * cancel comes in a POST of its own, possibly to another isolate, so the `answer` tool writes its run here (D1) for
 * as long as the call runs, keyed by who called and the call's JSON-RPC id.
 *
 * A request id is the client's own numbering, unique only per client; with no session, two clients behind one key and
 * one address that use the same id at the same moment are one caller here, and a cancel from either ends both runs.
 * Clients on other addresses or with other keys never meet.
 */

/** A call whose Worker died never ends its row; after this long it is ignored and swept. */
const STALE_MS = 24 * 60 * 60 * 1000;

const ensureTable = onFirstUse(schema);

/** Who is calling, as stored: a hash of the run owner and the client's address, so neither is kept. */
export const callerKey = (owner: string | undefined, address: string): Promise<string> => sha256Hex(`${owner ?? 'open'}\n${address}`);

const idText = (requestId: string | number) => JSON.stringify(requestId);

export interface CallRegistry {
  /** The call `requestId` of `caller` follows this run until `ended` is called. */
  started(requestId: string | number, runId: string): Promise<{ ended(): Promise<void> }>;
  /** The runs of calls `requestId` of `caller` that are still running. */
  runsOf(requestId: string | number): Promise<string[]>;
}

export const callRegistry = (db: D1Database, caller: string, now: () => number = Date.now): CallRegistry => ({
  async started(requestId, runId) {
    await ensureTable(db);
    await db.batch([
      db.prepare('DELETE FROM mcp_calls WHERE started_at < ?').bind(now() - STALE_MS),
      db.prepare('INSERT OR REPLACE INTO mcp_calls (caller, request_id, run_id, started_at) VALUES (?, ?, ?, ?)').bind(caller, idText(requestId), runId, now()),
    ]);
    return {
      ended: async () => {
        await db.prepare('DELETE FROM mcp_calls WHERE caller = ? AND request_id = ? AND run_id = ?').bind(caller, idText(requestId), runId).run();
      },
    };
  },
  async runsOf(requestId) {
    await ensureTable(db);
    const rows = await db
      .prepare('SELECT run_id FROM mcp_calls WHERE caller = ? AND request_id = ? AND started_at >= ?')
      .bind(caller, idText(requestId), now() - STALE_MS)
      .all<{ run_id: string }>();
    return rows.results.map((r) => r.run_id);
  },
});
