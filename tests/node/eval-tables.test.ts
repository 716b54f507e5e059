/// <reference types="node" />
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contextSchema } from '../../src/runs/request-schema';
import { loadBenchmark } from '../../src/eval/loaders/index';
import { prepareContexts } from '../../src/eval/node/contexts';
import { hybridqaTables } from '../../src/eval/node/hybridqa-tables';
import { readBenchmarkText } from '../../src/eval/node/read-text';
import { parseProgramContext } from '../../src/strategies/program/input';
import { dataPath, needsData } from '../support/benchmark-data';

const data = dataPath('hybridqa');
const wikiTables = join(data, 'WikiTables-WithLinks');
const hasData = existsSync(join(wikiTables, 'tables_tok'));

describe.skipIf(!hasData)(needsData('HybridQA contexts from the real WikiTables-WithLinks files'), () => {
  const tables = hasData ? hybridqaTables(wikiTables) : undefined;
  const ids = hasData ? readdirSync(join(wikiTables, 'tables_tok')).map((f) => f.replace(/\.json$/, '')) : [];

  it('keeps every cell with its links and sends the passages those links lead to', () => {
    const ctx = tables!.context('1947_BAA_draft_0')!;
    expect(ctx.table.title).toBe('1947 BAA draft — Draft');
    expect(ctx.table.columns).toEqual(['Round', 'Pick', 'Player', 'Position', 'Team', 'College']);
    expect(ctx.table.rows[0][2]).toEqual({ text: 'Clifton McNeely', links: ['/wiki/Clifton_McNeely'] });
    expect(ctx.table.rows[0][0]).toEqual({ text: '1', links: [] });
    expect(ctx.passages['/wiki/Clifton_McNeely']).toMatch(/^Clifton McNeely \( June 22 , 1919/);
    // Every passage is reachable from a cell; every cell link with a passage upstream has one here.
    const links = new Set(ctx.table.rows.flat().flatMap((c) => c.links));
    expect(Object.keys(ctx.passages).every((l) => links.has(l))).toBe(true);
    expect(ctx.passages['/wiki/University_of_Wisconsin–Madison']).toContain('Wisconsin');
  });

  it('builds a table that has no passages file upstream, with its links and no passages', () => {
    const id = 'List_of_sports_venues_with_sole_naming_rights_4';
    expect(existsSync(join(wikiTables, 'request_tok', `${id}.json`))).toBe(false);
    const ctx = tables!.context(id)!;
    expect(ctx.passages).toEqual({});
    expect(ctx.table.rows.length).toBe(20);
    expect(ctx.table.rows.flat().some((c) => c.links.some((l) => l.startsWith('/wiki/')))).toBe(true);
    expect(parseProgramContext(ctx).ok).toBe(true);
  });

  it('every real table passes the API schema (its caps) and program mode parses it unchanged', () => {
    expect(ids).toHaveLength(16);
    for (const id of ids) {
      const ctx = tables!.context(id)!;
      const api = contextSchema.safeParse(ctx);
      expect(api.success, `${id}: ${api.success ? '' : api.error.message}`).toBe(true);
      const parsed = parseProgramContext(ctx);
      expect(parsed.ok, id).toBe(true);
      if (parsed.ok) expect(parsed.value.table.rows).toEqual(ctx.table.rows);
    }
  });

  it('a path-like table id is not a table', () => {
    expect(tables!.has('../request_tok/1947_BAA_draft_0')).toBe(false);
    expect(tables!.context('../../etc/passwd')).toBeUndefined();
  });

  it('the dev questions: 17 have their table here, the rest are counted as skipped', () => {
    const items = loadBenchmark('hybridqa', readBenchmarkText(join(data, 'dev.json')));
    const prepared = prepareContexts('hybridqa', items, { tables: wikiTables });
    expect(prepared.items).toHaveLength(17);
    expect(prepared.skipped).toBe(items.length - 17);
    expect(prepared.note).toMatch(/^skipped 3449 of 3466 questions whose table is not in /);
    const ctx = prepared.contextFor(prepared.items[0]) as { table: { columns: string[] } };
    // Without --tables every question is kept, and the CLI warns that program mode will have no table.
    const bare = prepareContexts('hybridqa', items, {});
    expect(bare.items).toHaveLength(items.length);
    expect(bare.contextFor(items[0])).toBeUndefined();
    expect(bare.note).toMatch(/^warning: no --tables/);
    expect(ctx.table.columns.length).toBeGreaterThan(0);
  });
});
