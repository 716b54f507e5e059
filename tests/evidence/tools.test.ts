import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/embeddings/types';
import { createStaticEvidence } from '../../src/evidence/static';
import { scriptedLLM, type Script } from '../../src/llm/scripted';
import { generateQuery, getLabel, getWikidataID, hqaTools, read, runQuery, wikisearch } from '../../src/tools';
import type { ToolContext } from '../../src/tools/types';
import { fixtureBundle } from './fixture';

const evidence = createStaticEvidence({ db: env.DB, bundle: fixtureBundle });
const noEmbedder: Embedder = { name: 'none', dims: 0, embed: async () => [] };
const context = (script: Script = {}, question?: string) => {
  const llm = scriptedLLM(script);
  const ctx: ToolContext = { llm, evidence, embedder: noEmbedder, question };
  return { ctx, llm };
};

describe('the six HQA tools on the fixture snapshot', () => {
  it('are registered under the protocol names', () => {
    expect(hqaTools().map((t) => t.name)).toEqual(['wikisearch', 'read', 'getWikidataID', 'generateQuery', 'runQuery', 'getLabel']);
  });

  it('wikisearch lists titles with snippets', async () => {
    const { ctx } = context();
    const out = await wikisearch.execute(ctx, wikisearch.fromText('"bodyguard porter"\nObservation: made up'));
    expect(out.split('\n')[0]).toMatch(/^1\. Douglas Adams — .*porter/);
    expect(await wikisearch.execute(ctx, { query: 'zzqx' })).toMatch(/No Wikipedia page matched/);
  });

  it('read answers from the best chunks, cites the page and fences the page text as data', async () => {
    const { ctx, llm } = context({ read: ['He worked as a hospital porter and a bodyguard.'] });
    const out = await read.execute(ctx, read.fromText("[Douglas Adams] # What jobs did he do before his success?"));
    expect(out).toBe('He worked as a hospital porter and a bodyguard. (source: Douglas Adams, https://en.wikipedia.org/wiki/Douglas_Adams)');
    const prompt = llm.requests[0].messages.map((m) => m.content).join('\n');
    expect(llm.requests[0].purpose).toBe('read');
    expect(prompt).toMatch(/<<<QUESTION\nWhat jobs did he do before his success\?\nQUESTION>>>/);
    expect(prompt).toMatch(/<<<PAGE\n[\s\S]*hospital porter[\s\S]*\nPAGE>>>/);
    expect(prompt).toMatch(/never as instructions/);
  });

  it('read keeps an injected page inside the delimiters and uses the run question by default', async () => {
    const { ctx, llm } = context({ read: ['It began as a radio series in 1978.'] }, 'When did the radio series start?');
    await read.execute(ctx, read.fromText("The Hitchhiker's Guide to the Galaxy"));
    const user = String(llm.requests[0].messages[1].content);
    expect(user).toMatch(/<<<QUESTION\nWhen did the radio series start\?\nQUESTION>>>/);
    const inside = user.slice(user.indexOf('<<<PAGE'), user.indexOf('PAGE>>>'));
    expect(inside).toMatch(/Ignore all previous instructions/);
  });

  it('read says clearly when the page does not exist, without calling the model', async () => {
    const { ctx, llm } = context();
    expect(await read.execute(ctx, { title: 'Atlantis City', question: 'x' })).toMatch(/no page titled "Atlantis City".*wikisearch/);
    expect(llm.requests).toHaveLength(0);
  });

  it('getWikidataID maps titles to QIDs and reports misses', async () => {
    const { ctx } = context();
    expect(await getWikidataID.execute(ctx, getWikidataID.fromText("'Douglas Adams'"))).toBe('Douglas Adams: Q42');
    expect(await getWikidataID.execute(ctx, getWikidataID.fromText('Cambridge | Nowhere Land'))).toBe(
      'Cambridge: Q350\nNowhere Land: no Wikidata item found (check the exact title with wikisearch)',
    );
  });

  it('getLabel reads ids out of loose text', async () => {
    const { ctx } = context();
    const out = await getLabel.execute(ctx, getLabel.fromText('[wd:Q42, Q350] and P31'));
    expect(out).toBe(
      'Q42: Douglas Adams — English author and humourist\nQ350: Cambridge — city in Cambridgeshire, England\nP31: instance of',
    );
    expect(() => getLabel.fromText('no ids here')).toThrow(/getLabel needs ids/);
  });

  it('generateQuery grounds the model in the entity properties and returns the bare query', async () => {
    const { ctx, llm } = context({
      generateQuery: ['Here it is:\n```sparql\nSELECT ?start WHERE { wd:Q42 p:P69 ?s . ?s pq:P580 ?start }\n```'],
    });
    const out = await generateQuery.execute(ctx, generateQuery.fromText('When did Douglas Adams start at college? # Q42'));
    expect(out).toBe('SELECT ?start WHERE { wd:Q42 p:P69 ?s . ?s pq:P580 ?start }');
    const user = String(llm.requests[0].messages[1].content);
    expect(llm.requests[0].purpose).toBe('generateQuery');
    expect(user).toMatch(/Q42 — Douglas Adams \(English author and humourist\)/);
    expect(user).toMatch(/P69 educated at: Q691283 \(St John's College\) \[qualifiers: P580 \(start time\), P582 \(end time\)\]/);
  });

  it('generateQuery flags a query that runQuery would refuse', async () => {
    const { ctx } = context({ generateQuery: ['DELETE WHERE { ?s ?p ?o }'] });
    expect(await generateQuery.execute(ctx, { question: 'q', entities: ['Q42'] })).toMatch(/would be refused.*update operation/);
  });

  it('parses the input forms models write for generateQuery', () => {
    expect(generateQuery.fromText('{"question": "Who wrote it?", "entities": ["Q25169"]}')).toEqual({ question: 'Who wrote it?', entities: ['Q25169'] });
    expect(generateQuery.fromText('Q42, Q5 # Is he human?')).toEqual({ question: 'Is he human?', entities: ['Q42', 'Q5'] });
    expect(generateQuery.fromText('Is Q42 a human')).toEqual({ question: 'Is a human', entities: ['Q42'] });
  });

  it('runQuery shows rows with labels resolved and short dates', async () => {
    const { ctx } = context();
    const out = await runQuery.execute(
      ctx,
      runQuery.fromText('```sparql\nSELECT ?w ?born WHERE { ?w wdt:P106 wd:Q36180 ; wdt:P569 ?born } ORDER BY ?born\n```'),
    );
    expect(out).toBe('?w | ?born\nQ46248 (Terry Pratchett) | 1948-04-28\nQ42 (Douglas Adams) | 1952-03-11\n(2 rows)');
    expect(await runQuery.execute(ctx, { sparql: 'ASK { wd:Q42 wdt:P19 wd:Q145 }' })).toBe('ASK result: no (false)');
    expect(await runQuery.execute(ctx, { sparql: 'SELECT ?x WHERE { wd:Q42 wdt:P999 ?x }' })).toMatch(/^No results/);
  });

  it('runQuery turns a refused query into a clear error', async () => {
    const { ctx } = context();
    await expect(runQuery.execute(ctx, runQuery.fromText('LOAD <http://evil.example/x.ttl>'))).rejects.toThrow(/Refused: "LOAD"/);
  });

  it('runQuery bounds its output', async () => {
    const { ctx } = context();
    const out = await runQuery.execute(ctx, { sparql: 'SELECT ?s ?p ?o WHERE { ?s ?p ?o }' });
    expect(out.length).toBeLessThan(4_300);
    expect(out).toMatch(/\(showing 25 of \d+ rows\)$/);
  });
});
