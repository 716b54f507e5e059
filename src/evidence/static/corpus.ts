import schema from '../../../migrations/0001_corpus.sql';
import type { SearchHit } from '../types';
import { schemaStatements } from '../../d1/schema';
import { normTitle, type SnapshotPage } from './pages';

const SCHEMA_VERSION = '1';


const hashes = new WeakMap<SnapshotPage[], Promise<string>>();
const contentHash = (pages: SnapshotPage[]): Promise<string> => {
  let h = hashes.get(pages);
  if (!h) {
    const data = new TextEncoder().encode(`${SCHEMA_VERSION}\n${JSON.stringify(pages.map((p) => [p.title, p.wikidataId, p.body]))}`);
    h = crypto.subtle.digest('SHA-256', data).then((d) => [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join(''));
    hashes.set(pages, h);
  }
  return h;
};

const ready = new WeakMap<D1Database, WeakMap<SnapshotPage[], Promise<void>>>();

/**
 * Makes sure the D1 full-text index holds exactly these pages. Idempotent: the schema is created with IF NOT EXISTS,
 * and pages are (re)written in one batch (a transaction) only when the stored content hash differs.
 * Concurrent first calls in one isolate share one promise.
 */
export const ensureCorpus = (db: D1Database, pages: SnapshotPage[]): Promise<void> => {
  let perDb = ready.get(db);
  if (!perDb) ready.set(db, (perDb = new WeakMap()));
  let p = perDb.get(pages);
  if (!p) {
    p = loadCorpus(db, pages).catch((err) => {
      perDb?.delete(pages);
      throw err;
    });
    perDb.set(pages, p);
  }
  return p;
};

const loadCorpus = async (db: D1Database, pages: SnapshotPage[]): Promise<void> => {
  await db.batch(schemaStatements(schema).map((s) => db.prepare(s)));
  const hash = await contentHash(pages);
  const row = await db.prepare(`SELECT value FROM corpus_meta WHERE key = 'bundle_hash'`).first<{ value: string }>();
  if (row?.value === hash) return;
  const statements = [db.prepare('DELETE FROM corpus_fts'), db.prepare('DELETE FROM corpus_pages')];
  pages.forEach((page, i) => {
    statements.push(
      db.prepare('INSERT INTO corpus_pages (id, title, norm_title, wikidata_id, url) VALUES (?, ?, ?, ?, ?)')
        .bind(i + 1, page.title, normTitle(page.title), page.wikidataId ?? null, page.url),
      db.prepare('INSERT INTO corpus_fts (rowid, title, body) VALUES (?, ?, ?)').bind(i + 1, page.title, page.body),
    );
  });
  statements.push(
    db.prepare(`INSERT INTO corpus_meta (key, value) VALUES ('bundle_hash', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).bind(hash),
    db.prepare(`INSERT INTO corpus_meta (key, value) VALUES ('pages', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).bind(String(pages.length)),
  );
  await db.batch(statements);
};

const STOPWORDS = new Set(
  'a an and are as at be by did do does for from had has have how in is it its of on or that the this to was were what when where which who whom whose why with'.split(' '),
);

/**
 * Builds an FTS5 MATCH expression from arbitrary text that can never be an FTS syntax error: every term is a
 * quoted string (quotes inside are impossible, terms are letters and digits only), joined with OR so bm25 ranks
 * pages by how many and how rare the matched terms are.
 */
export const ftsQuery = (text: string): string | null => {
  const words = text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  const content = words.filter((w) => !STOPWORDS.has(w));
  const terms = [...new Set(content.length ? content : words)].slice(0, 24);
  return terms.length ? terms.map((t) => `"${t}"`).join(' OR ') : null;
};

const cleanSnippet = (s: string) => s.replace(/\s+/g, ' ').replace(/[#|]+/g, ' ').replace(/\s+/g, ' ').trim();

type Row = { title: string; url: string; norm: string; snippet: string };

/**
 * Title hits first (like Wikipedia's "go" match), then bm25 order with the title weighted above the body.
 * The stored bundle hash is read in the same round trip, so an index rewritten by another deployment's isolate
 * is noticed and reloaded instead of silently searched.
 */
export const searchCorpus = async (db: D1Database, pages: SnapshotPage[], query: string, limit: number): Promise<SearchHit[]> => {
  const match = ftsQuery(query);
  if (!match) return [];
  await ensureCorpus(db, pages);
  const expected = await contentHash(pages);
  const run = () =>
    db.batch<Row | { value: string }>([
      db.prepare(`SELECT value FROM corpus_meta WHERE key = 'bundle_hash'`),
      db
        .prepare(
          `SELECT p.title, p.url, p.norm_title AS norm, snippet(corpus_fts, 1, '', '', '…', 24) AS snippet
           FROM corpus_fts JOIN corpus_pages p ON p.id = corpus_fts.rowid
           WHERE corpus_fts MATCH ?
           ORDER BY bm25(corpus_fts, 8.0, 1.0)
           LIMIT ?`,
        )
        .bind(match, limit + 5),
    ]);
  let [meta, found] = await run();
  if ((meta.results[0] as { value: string } | undefined)?.value !== expected) {
    await loadCorpus(db, pages);
    [meta, found] = await run();
  }
  const wanted = normTitle(query);
  const hits = (found.results as Row[]).map((r) => ({ title: r.title, url: r.url, snippet: cleanSnippet(r.snippet), exact: r.norm === wanted }));
  hits.sort((a, b) => Number(b.exact) - Number(a.exact));
  return hits.slice(0, limit).map(({ exact: _exact, ...hit }) => hit);
};
