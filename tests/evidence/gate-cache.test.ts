import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { GateCache } from '../../durable-objects/gate-cache';
import { PolitenessGate } from '../../durable-objects/politeness-gate';

/**
 * The answers a politeness gate keeps for every run are measured as SQLite stores them, in UTF-8 bytes: a cap counted
 * in characters would let text outside ASCII take up to three times the room it names (docs/CONFIGURATION.md).
 */
const gate = () => env.POLITENESS_GATE.get(env.POLITENESS_GATE.idFromName(`cache-${crypto.randomUUID()}`));
const LATER = Date.now() + 60_000;

describe('the politeness gate cache', () => {
  it('keeps an answer of 900,000 ASCII characters and refuses one of 400,000 euro signs (1.2 MB as stored)', async () => {
    const kept = await runInDurableObject(gate(), async (_live, state) => {
      const cache = new GateCache(state.storage.sql);
      cache.keep('ascii', 'a'.repeat(900_000), LATER, Date.now());
      cache.keep('euros', '€'.repeat(400_000), LATER, Date.now());
      cache.keep('short', '€'.repeat(1_000), LATER, Date.now());
      return { ascii: cache.get('ascii', Date.now())?.length, euros: cache.get('euros', Date.now()), short: cache.get('short', Date.now())?.length };
    });
    expect(kept).toEqual({ ascii: 900_000, euros: undefined, short: 1_000 });
  });

  it('drops a cache an older gate kept in characters, and starts empty', async () => {
    const after = await runInDurableObject(gate(), async (_live, state) => {
      const sql = state.storage.sql;
      // Storage as a gate from before the numbered migrations left it: a table `answers`, no schema version.
      sql.exec('DROP TABLE cached_answers');
      sql.exec('DELETE FROM kv');
      sql.exec('CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, body TEXT NOT NULL, chars INTEGER NOT NULL, expires INTEGER NOT NULL, used INTEGER NOT NULL)');
      sql.exec('INSERT INTO answers (key, body, chars, expires, used) VALUES (?, ?, ?, ?, ?)', 'old', 'old answer', 10, LATER, 0);
      // The object as it comes back after a deploy: its migrations run once, in its constructor.
      new PolitenessGate(state, env);
      const cache = new GateCache(sql);
      const tables = sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('answers', 'cached_answers')").toArray();
      return { old: cache.get('old', Date.now()), tables: tables.map((t) => t.name) };
    });
    expect(after).toEqual({ old: undefined, tables: ['cached_answers'] });
  });
});
