import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createStaticEvidence } from '../../src/evidence/static';
import { graphEngine } from '../../src/evidence/static/engine';
import { bundle } from '../../src/generated/bundle';

/**
 * Hostile SPARQL through the real route (`POST /v1/tools/runQuery`) against the bundled snapshot: each one gets a
 * clear observation, and the Wikidata tools keep working right after it (issue 14: before, one query could pin a
 * core, grow workerd by gigabytes, or leave a dead store behind a healthy-looking /healthz).
 */
const tool = async (name: string, input: string) => {
  const res = await exports.default.fetch('http://localhost/v1/tools/' + name, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  expect(res.status).toBe(200);
  return (await res.json<{ output: string; error?: boolean }>()).output;
};

const health = async () => (await exports.default.fetch('http://localhost/healthz')).json<any>();

/** The normal queries the issue lists: each must work after every hostile one. */
const expectWorkingTools = async () => {
  expect(await tool('getLabel', 'Q64')).toMatch(/Berlin/);
  expect(await tool('getWikidataID', 'Berlin')).toMatch(/Q64\b/);
  expect(await tool('runQuery', 'SELECT ?c WHERE { wd:Q64 wdt:P17 ?c }')).toMatch(/Q183 \(Germany\)/);
  expect(await health()).toMatchObject({ ok: true, evidence: { kind: 'static', checked: true, ready: true } });
};

const nested = (n: number) => `SELECT * WHERE ${'{'.repeat(n)}${'}'.repeat(n)}`;

describe('hostile SPARQL on the static store', () => {
  it('refuses a three-way cartesian COUNT before running it, naming the unconnected patterns', async () => {
    const out = await tool('runQuery', 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }');
    expect(out).toMatch(/^Error: Refused before running/);
    expect(out).toMatch(/share no variable/);
    expect(out).toMatch(/bind a subject or object/);
    await expectWorkingTools();
  });

  it('refuses ORDER BY over a cartesian product of all-variable patterns, and says LIMIT does not help', async () => {
    const out = await tool('runQuery', 'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?a ?d');
    expect(out).toMatch(/^Error: Refused before running/);
    expect(out).toMatch(/"\?a \?b \?c"/);
    expect(out).toMatch(/ORDER BY/);
    await expectWorkingTools();
  });

  it('refuses 1,000 nested groups before the engine parses them', async () => {
    const out = await tool('runQuery', nested(1000));
    expect(out).toMatch(/^Error: Refused: the query nests groups or parentheses 1000 levels deep; at most \d+/);
    await expectWorkingTools();
  });

  it('refuses variations an attacker would try next', async () => {
    for (const q of [
      'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 10',
      'SELECT * WHERE { { ?a ?b ?c } { ?d ?e ?f } }',
      'SELECT * WHERE { { SELECT * WHERE { ?a ?b ?c } } { SELECT * WHERE { ?d ?e ?f } } } ORDER BY ?a',
      'SELECT * WHERE { ?a ?b ?c OPTIONAL { ?d ?e ?f } }',
      'SELECT * WHERE { ?a ?b ?c FILTER EXISTS { ?d ?e ?f . ?g ?h ?i } }',
      'SELECT * WHERE { ?a ?b ?c MINUS { ?d ?e ?f . ?g ?h ?i } }',
      'ASK { ?a ?b ?c . ?d ?e ?f }',
      'SELECT (COUNT(*) AS ?n) WHERE { ?a wdt:P31 ?b . ?c wdt:P31 ?d . ?e wdt:P31 ?f }',
      'SELECT * WHERE { ?a ?b ?c . ?c ?d ?e . ?e ?f ?g . ?g ?h ?i }',
      'SELECT * WHERE { [] ?p ?o ; ?p2 ?o2 ; ?p3 ?o3 ; ?p4 ?o4 }',
    ]) {
      expect(await tool('runQuery', q), q).toMatch(/^Error: Refused before running: this query would build .* intermediate rows/);
    }
    expect(await tool('runQuery', 'SELECT * WHERE { ?a (wdt:P31|!wdt:P31)* ?b }')).toMatch(/property path .* has neither end bound/);
    expect(await tool('runQuery', 'SELECT * WHERE { ?a wdt:P279* ?b . ?c ?d ?e }')).toMatch(/share no variable/);
    expect(await tool('runQuery', `SELECT * WHERE { FILTER(${'!'.repeat(400)}true) }`)).toMatch(/^Error: Refused: the query has \d+ operators and UNIONs; at most 150/);
    const values = `SELECT ?x WHERE { VALUES (?x ?y) { ${'(1 2)'.repeat(1100)} } }`;
    expect(await tool('runQuery', values)).toMatch(/^Error: Refused: the VALUES blocks hold 2,200 cells/);
    await expectWorkingTools();
  });

  it('stops a query that slips past the estimate at the engine work budget, then serves the next one', async () => {
    const engine = graphEngine(bundle.graph);
    const before = engine.status().restarts;
    // Straight to the engine, skipping the estimate: a cartesian COUNT the meter must stop.
    expect(() => engine.query('SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }')).toThrow(/more work than one query may spend/);
    expect(engine.status()).toMatchObject({ restarts: before + 1, lastFault: 'work budget exhausted' });
    await expectWorkingTools();
  });

  it('a skewed join the estimate lets through is stopped by the engine meter, with advice about its unbound pattern', async () => {
    // Few objects (wd:Q5, wd:Q6581097, ...) carry most of the triples, so the average-based estimate is low.
    const out = await tool('runQuery', 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?c . ?d ?f ?g }');
    expect(out).toMatch(/^Error: Refused: the query needed more work than one query may spend, and was stopped\./);
    expect(out).toMatch(/In this query: .*fixes none of subject, predicate and object/);
    await expectWorkingTools();
  });

  it('rebuilds the store after a real engine trap (deep nesting straight to the engine)', async () => {
    const engine = graphEngine(bundle.graph);
    const before = engine.status().restarts;
    expect(() => engine.query(nested(5000))).toThrow(/engine failed on this query|memory/);
    expect(engine.status().restarts).toBe(before + 1);
    await expectWorkingTools();
  });

  it('caps the engine memory: a query that doubles a string until it is huge is stopped, not served', async () => {
    const binds = Array.from({ length: 30 }, (_, k) => `BIND(CONCAT(?s${k}, ?s${k}) AS ?s${k + 1})`).join(' ');
    const out = await tool('runQuery', `SELECT (STRLEN(?s30) AS ?n) WHERE { BIND("xxxxxxxx" AS ?s0) ${binds} }`);
    expect(out).toMatch(/^Error: .*(memory|work)/);
    await expectWorkingTools();
  });

  it('after a forced trap, /healthz reports the restart and the fault, and still checks the store for real', async () => {
    const engine = graphEngine(bundle.graph);
    const before = engine.status().restarts;
    engine.crashForTesting();
    // /healthz probes the store at most once a second (a burst of checks shares one probe): the next probe sees it.
    let h = await health();
    for (let i = 0; i < 30 && h.evidence.restarts !== before + 1; i++) h = (await new Promise((r) => setTimeout(r, 100)), await health());
    expect(h.ok).toBe(true);
    expect(h.evidence).toMatchObject({ kind: 'static', checked: true, ready: true, restarts: before + 1 });
    expect(h.evidence.lastFault).toMatch(/forced by a test/);
    expect(h.evidence.triples).toBeGreaterThan(1000);
    await expectWorkingTools();
  });

  it('a store that cannot answer is reported as not ready, with the reason', async () => {
    const broken = createStaticEvidence({ db: env.DB, bundle: { graph: [{ file: 'broken.ttl', text: 'wd:Q1 this is not turtle' }], pages: [] } });
    const h = await broken.health!();
    expect(h).toMatchObject({ checked: true, ready: false });
    expect(h.message).toMatch(/does not answer: snapshot graph file broken.ttl does not parse/);
  });
});
