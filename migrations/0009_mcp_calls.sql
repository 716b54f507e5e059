-- MCP `answer` calls in flight (src/mcp/call-registry.ts): a `notifications/cancelled` arrives in a POST of its own,
-- and a stateless server has no session to find the call in, so each call's run is written here while it runs.
-- caller is a SHA-256 of the run owner and the client's address (the request id is the client's own numbering, so it is
-- only unique per client); request_id the JSON text of the JSON-RPC id; rows are deleted when the call ends, and
-- rows older than a day (a call whose Worker died) are ignored and deleted.
-- Applied by wrangler d1 migrations, and also at first use, so every statement must be safe to repeat.
CREATE TABLE IF NOT EXISTS mcp_calls (
  caller TEXT NOT NULL,
  request_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (caller, request_id, run_id)
);
CREATE INDEX IF NOT EXISTS mcp_calls_by_age ON mcp_calls (started_at);
