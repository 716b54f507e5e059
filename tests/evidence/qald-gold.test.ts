import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createStaticEvidence } from '../../src/evidence/static';

/**
 * The SPARQL cost estimate must not refuse what the store answers cheaply: real gold queries (chained property-path
 * closures, qualifiers, FILTERs) run on the snapshot, through the same budget check and metered engine as runQuery.
 */
const qaldFiles = import.meta.glob<string>('@benchmark-data/qald9plus/*.json', { query: '?raw', import: 'default', eager: true });
const goldQueries = Object.values(qaldFiles).flatMap((text) =>
  (JSON.parse(text) as { questions: Array<{ id: string; query?: { sparql?: string } }> }).questions
    .filter((q) => q.query?.sparql)
    .map((q) => ({ id: q.id, sparql: q.query!.sparql! })),
);

const failuresOf = async (queries: Array<{ id: string; sparql: string }>) => {
  const evidence = createStaticEvidence({ db: env.DB });
  const failures: string[] = [];
  for (const q of queries) {
    try {
      await evidence.sparql(q.sparql);
    } catch (err) {
      failures.push(`${q.id}: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`);
    }
  }
  return failures;
};

const PREFIXES = 'PREFIX wdt: <http://www.wikidata.org/prop/direct/> PREFIX wd: <http://www.wikidata.org/entity/> ';

describe('SPARQL cost estimate and gold queries', () => {
  it('runs chained closures joined with a type pattern (a QALD-9-Plus gold shape once estimated at 180,000 rows)', async () => {
    const failures = await failuresOf([
      { id: 'company in Berlin', sparql: `${PREFIXES}SELECT DISTINCT ?uri WHERE { ?uri wdt:P31 wd:Q4830453 . ?uri wdt:P159*/wdt:P31*/wdt:P131 wd:Q64 . }` },
      { id: 'any type', sparql: `${PREFIXES}SELECT DISTINCT ?uri WHERE { ?uri wdt:P31 ?type . ?uri wdt:P159*/wdt:P31*/wdt:P131 wd:Q64 . }` },
      { id: 'subclass closure', sparql: `${PREFIXES}SELECT DISTINCT ?uri WHERE { ?uri wdt:P31/wdt:P279* wd:Q4830453 . ?uri wdt:P159*/wdt:P31*/wdt:P131 wd:Q1055 . }` },
    ]);
    expect(failures).toEqual([]);
  });

  it('still refuses a closure followed from every node, before running it', async () => {
    const failures = await failuresOf([{ id: 'unbound', sparql: `${PREFIXES}SELECT * WHERE { ?a wdt:P31* ?b . ?c wdt:P17 ?d }` }]);
    expect(failures).toEqual([expect.stringMatching(/^unbound: Refused before running/)]);
  });

  it.skipIf(goldQueries.length === 0)('runs every QALD-9-Plus gold query in the data folder [benchmark data]', async () => {
    expect(goldQueries.length).toBeGreaterThan(50);
    expect(await failuresOf(goldQueries)).toEqual([]);
  });
});
