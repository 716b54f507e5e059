import { afterEach, describe, expect, it, vi } from 'vitest';
import { localEmbedder } from '../../src/embeddings';
import { createLiveEvidence } from '../../src/evidence/live';
import { scriptedLLM } from '../../src/llm/scripted';
import { read } from '../../src/tools/read';

const mirror = {
  WIKIPEDIA_API_URL: 'http://127.0.0.1:9101/w/api.php',
  WIKIDATA_SPARQL_URL: 'http://127.0.0.1:9102/sparql',
  WIKIDATA_API_URL: 'http://127.0.0.1:9103/w/api.php',
};

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

// What `action=parse` returns for a page: the rendered article, with an infobox, a data table and page furniture.
const ARTICLE_HTML = `<div class="mw-parser-output">
<table class="infobox vcard"><tbody>
<tr><th colspan="2">Lionel Messi</th></tr>
<tr><th>Born</th><td>24 June 1987<br>Rosario, Argentina</td></tr>
<tr><th>Height</th><td>1.70 m</td></tr>
<tr><th>Position</th><td>Forward</td></tr>
</tbody></table>
<p>Lionel Messi is an Argentine footballer.<sup class="reference">[1]</sup></p>
<h2>Honours</h2>
<table class="wikitable"><tbody>
<tr><th>Award</th><th>Wins</th></tr>
<tr><td>Ballon d'Or</td><td>8</td></tr>
<tr><td>European Golden Shoe</td><td>6</td></tr>
</tbody></table>
<div class="navbox"><table><tr><td>Links</td><td>More links</td></tr><tr><td>a</td><td>b</td></tr></table></div>
</div>`;

const EXTRACT = { query: { pages: [{ title: 'Lionel Messi', extract: 'Lionel Messi is an Argentine footballer.', pageprops: { wikibase_item: 'Q615' } }] } };

const fakeWikipedia = (parse: () => Response) => {
  const actions: string[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const action = url.searchParams.get('action') ?? '';
    actions.push(action);
    return action === 'parse' ? parse() : json(EXTRACT);
  });
  return actions;
};

const live = () => createLiveEvidence(mirror, { cache: null, maxRetryWaitMs: 5, maxRetries: 0 });

afterEach(() => vi.restoreAllMocks());

describe('live pages come with their tables', () => {
  it('renders the infobox and data tables of the parsed article as markdown, without navigation boxes', async () => {
    const actions = fakeWikipedia(() => json({ parse: { title: 'Lionel Messi', text: ARTICLE_HTML } }));
    const page = await live().page('Lionel Messi');
    expect(actions).toEqual(['query', 'parse']);
    expect(page?.tables).toHaveLength(2);
    expect(page?.tables[0]).toMatch(/\| Born \| 24 June 1987 ?Rosario, Argentina \|/);
    expect(page?.tables[1]).toBe("| Award | Wins |\n| --- | --- |\n| Ballon d'Or | 8 |\n| European Golden Shoe | 6 |");
    expect(page?.tables.join('\n')).not.toMatch(/More links/);
  });

  it('read shows the model the table that answers the question', async () => {
    fakeWikipedia(() => json({ parse: { title: 'Lionel Messi', text: ARTICLE_HTML } }));
    const llm = scriptedLLM({ read: ['He has won the Ballon d\'Or 8 times.'] });
    const out = await read.execute({ llm, evidence: live(), embedder: localEmbedder() }, read.fromText("Lionel Messi # How many Ballon d'Or awards has he won?"));
    expect(out).toBe("He has won the Ballon d'Or 8 times. (source: Lionel Messi, http://127.0.0.1:9101/wiki/Lionel_Messi)");
    const prompt = String(llm.requests[0].messages[1].content);
    expect(prompt).toMatch(/\[Table\] \| Award \| Wins \|[\s\S]*\| Ballon d'Or \| 8 \|/);
  });

  it('still reads the text when the parse call fails', async () => {
    fakeWikipedia(() => json({ error: { code: 'internal' } }, 500));
    const page = await live().page('Lionel Messi');
    expect(page).toMatchObject({ title: 'Lionel Messi', wikidataId: 'Q615', tables: [] });
    expect(page?.sections[0].text).toBe('Lionel Messi is an Argentine footballer.');
  });
});
