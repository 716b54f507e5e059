/// <reference types="vite/client" />
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createStaticEvidence } from '../../src/evidence/static';
import type { SparqlResults } from '../../src/evidence/types';
import { bundle } from '../../src/generated/bundle';

// The snapshot as it is in the repository, read by Vite when the test is built; the Worker ships the generated bundle.
const graphFiles = import.meta.glob('../../data/snapshot/graph/*.ttl', { eager: true, query: '?raw', import: 'default' }) as Record<string, string>;
const pageFiles = import.meta.glob('../../data/snapshot/pages/*.md', { eager: true, query: '?raw', import: 'default' }) as Record<string, string>;
const demoFiles = import.meta.glob('../../data/snapshot/demo-questions.json', { eager: true, import: 'default' }) as Record<string, unknown>;

/** `../../data/snapshot/x` → `data/snapshot/x`, as the bundle names its files; sorted by name. */
const sourceFiles = (glob: Record<string, string>) =>
  Object.entries(glob)
    .map(([file, text]) => ({ file: file.replace(/^(\.\.\/)+/, ''), text }))
    .sort((a, b) => a.file.localeCompare(b.file));

type Demo = { id?: string; question: string; sparql?: string; answer?: unknown; answers?: unknown };
const demos = (Object.values(demoFiles)[0] as Demo[] | { questions: Demo[] } | undefined) ?? [];
const demoList: Demo[] = Array.isArray(demos) ? demos : (demos.questions ?? []);

const values = (r: SparqlResults): string[] =>
  'results' in r ? r.results.bindings.flatMap((row) => Object.values(row).map((t) => t.value)) : [String(r.boolean), r.boolean ? 'yes' : 'no'];

const norm = (s: string) => s.toLowerCase().replace(/^http:\/\/www\.wikidata\.org\/entity\//, '').replace(/t00:00:00z$/, '').trim();

describe('the built snapshot bundle', () => {
  it('holds every graph file and page of data/snapshot, as they are now (a stale or broken build fails here)', () => {
    const byName = (files: Array<{ file: string; text: string }>) => [...files].sort((a, b) => a.file.localeCompare(b.file));
    expect(sourceFiles(graphFiles).length).toBeGreaterThan(5);
    expect(sourceFiles(pageFiles).length).toBeGreaterThan(50);
    expect(byName(bundle.graph)).toEqual(sourceFiles(graphFiles));
    expect(byName(bundle.pages)).toEqual(sourceFiles(pageFiles));
  });
});

describe('the bundled snapshot graph', () => {
  // The evidence the Worker serves offline: the generated bundle, not the files read here.
  const ev = createStaticEvidence({ db: env.DB });

  it('loads into the store and answers a WDQS-style query', async () => {
    const r = await ev.sparql('SELECT (COUNT(*) AS ?n) WHERE { ?s rdfs:label ?l }');
    expect(Number(values(r)[0])).toBeGreaterThan(100);
  });

  it('gives no label to a variable an OPTIONAL left unbound, and adds no rows for it', async () => {
    const body = 'wd:Q3107329 wdt:P50 ?author . OPTIONAL { ?author wdt:P20 ?place }';
    const plain = await ev.sparql(`SELECT ?author ?place WHERE { ${body} }`);
    const labelled = await ev.sparql(`SELECT ?author ?place ?placeLabel WHERE { ${body} SERVICE wikibase:label { bd:serviceParam wikibase:language "en". } }`);
    const rows = (r: SparqlResults) => ('results' in r ? r.results.bindings : []);
    expect(rows(plain)).toEqual([{ author: { type: 'uri', value: 'http://www.wikidata.org/entity/Q42' } }]);
    expect(rows(labelled)).toEqual(rows(plain));
  });

  const withSparql = demoList.filter((d) => d.sparql);
  it('has demo questions with queries to check', () => {
    expect(withSparql.length).toBeGreaterThan(10);
  });
  it.each(withSparql.map((d) => [d.id ?? d.question, d] as const))('demo question %s: its query finds the expected answer', async (_name, demo) => {
    const r = await ev.sparql(demo.sparql!);
    const got = new Set(values(r).map(norm));
    const expected = [demo.answers ?? demo.answer].flat().filter((x) => x !== undefined && x !== null).map((x) => norm(String(x)));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.some((e) => got.has(e) || [...got].some((g) => g.includes(e)))).toBe(true);
  });
});
