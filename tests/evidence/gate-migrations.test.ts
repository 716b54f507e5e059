import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { GATE_MIGRATIONS } from '../../durable-objects/gate-migrations';
import { latestVersion } from '../../durable-objects/object-migrations';
import { PolitenessGate } from '../../durable-objects/politeness-gate';
import { RateLimiter } from '../../durable-objects/rate-limiter';
import type { GatePolicy } from '../../src/net/politeness/policy';

/**
 * Issue 42, item 6 (the gates' half): the politeness gate and the rate limiter create their tables by the run object's
 * convention, a numbered append-only list applied once per object (durable-objects/object-migrations.ts), and a gate
 * stored by older code is brought to the current shape when it next opens.
 */
const tables = (sql: SqlStorage) =>
  sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name").toArray().map((t) => t.name);
const version = (sql: SqlStorage) => Number(sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = 'schema'").one().value);
const wiki: GatePolicy = { concurrency: 3, requestsPerMinute: 12, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };

describe('the gate objects on numbered migrations', () => {
  it('a new gate and a new limiter reach the latest version of their lists, with every table', async () => {
    const gate = env.POLITENESS_GATE.get(env.POLITENESS_GATE.idFromName(`mig-${crypto.randomUUID()}`));
    const seen = await runInDurableObject(gate, async (_live, state) => ({ tables: tables(state.storage.sql), version: version(state.storage.sql) }));
    expect(seen).toEqual({ tables: ['board', 'cached_answers', 'gate', 'kv'], version: latestVersion(GATE_MIGRATIONS) });
    const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.newUniqueId());
    await limiter.take(60);
    expect(await runInDurableObject(limiter, async (_live, state) => ({ tables: tables(state.storage.sql), version: version(state.storage.sql) }))).toEqual({ tables: ['bucket', 'kv'], version: 1 });
  });

  it('a gate stored before the list (per-second request counts, no version) is upgraded once: its recent requests leave it no burst', async () => {
    const gate = env.POLITENESS_GATE.get(env.POLITENESS_GATE.idFromName(`mig-old-${crypto.randomUUID()}`));
    const after = await runInDurableObject(gate, async (_live, state) => {
      const sql = state.storage.sql;
      sql.exec('DROP TABLE board');
      sql.exec('DELETE FROM kv');
      const second = Math.floor(Date.now() / 1000) * 1000;
      const old = { backoffUntil: 0, inflight: 0, spent: [], errors: [], sent: [[second - 2_000, 11]] };
      sql.exec('INSERT OR REPLACE INTO gate (id, state) VALUES (1, ?)', JSON.stringify(old));
      const restarted = new PolitenessGate(state, env);
      const first = await restarted.enter(wiki);
      const row = JSON.parse(sql.exec<{ state: string }>('SELECT state FROM gate WHERE id = 1').one().state);
      // A second start finds the latest version and changes nothing.
      new PolitenessGate(state, env);
      return { first, row, tables: tables(sql), version: version(sql) };
    });
    expect(after.version).toBe(latestVersion(GATE_MIGRATIONS));
    expect(after.tables).toContain('board');
    expect(after.row.sent).toBeUndefined();
    // Eleven requests in the last minute under the old counting: the bucket starts empty, so the next one waits its turn.
    expect(after.first).toMatchObject({ kind: 'wait', reason: 'requests' });
  });

  it('a limiter stored before the list keeps its bucket: a caller who spent it is still refused', async () => {
    const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.newUniqueId());
    await limiter.take(2);
    await limiter.take(2);
    const again = await runInDurableObject(limiter, async (_live, state) => {
      state.storage.sql.exec('DELETE FROM kv');
      return new RateLimiter(state, env).take(2);
    });
    expect(again.allowed).toBe(false);
  });
});
