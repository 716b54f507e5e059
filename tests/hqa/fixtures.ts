import type { EventInput } from '../../src/engine/types';
import { env } from 'cloudflare:workers';
import { loadConfig } from '../../src/config';
import { localEmbedder } from '../../src/embeddings';
import { createEvidence } from '../../src/evidence';
import { parseProcess, type SolutionProcess } from '../../src/fewshot';
import { createVectorIndex } from '../../src/vectors';

/** The real snapshot services, as the Durable Object builds them offline. */
export const snapshotServices = () => ({
  evidence: () => createEvidence(loadConfig({}), { DB: env.DB }),
  embedder: () => localEmbedder(),
  vectors: () => createVectorIndex(loadConfig({}), { DB: env.DB }),
});

/** A tiny hand-written library, so tests do not depend on the benchmark libraries being written. */
const texts: Record<string, string> = {
  'fixture/01-text-only': `Question: Which instrument did the lead singer of Queen's first band play?
Thought: I should find the singer's page and read about his first band.
Action: wikisearch
Action Input: Freddie Mercury first band
Observation: 1. Freddie Mercury — British singer and songwriter…
Thought: I will read the page.
Action: read
Action Input: Freddie Mercury # Which instrument did he play in his first band?
Observation: He played the piano. (source: Freddie Mercury, https://en.wikipedia.org/wiki/Freddie_Mercury)
Thought: The page says piano.
Final Answer: piano
`,
  'fixture/02-graph-only': `Question: How many children did Charles Darwin have?
Thought: A count is best taken from Wikidata. I need the item id.
Action: getWikidataID
Action Input: Charles Darwin
Observation: Charles Darwin: Q1035
Thought: Now a query that counts children.
Action: generateQuery
Action Input: How many children did Charles Darwin have? # Q1035
Observation: SELECT (COUNT(?c) AS ?n) WHERE { wd:Q1035 wdt:P40 ?c . }
Thought: Run it.
Action: runQuery
Action Input: SELECT (COUNT(?c) AS ?n) WHERE { wd:Q1035 wdt:P40 ?c . }
Observation: ?n
10
(1 row)
Thought: The graph lists ten children.
Final Answer: 10
`,
  'fixture/03-text-graph': `Question: In which year was the author of Dracula born?
Thought: First the author, from the novel's page.
Action: read
Action Input: Dracula # Who wrote Dracula?
Observation: Bram Stoker wrote it. (source: Dracula, https://en.wikipedia.org/wiki/Dracula)
Thought: Now his birth date from Wikidata.
Action: getWikidataID
Action Input: Bram Stoker
Observation: Bram Stoker: Q36184
Thought: Query the birth date.
Action: runQuery
Action Input: SELECT ?d WHERE { wd:Q36184 wdt:P569 ?d . }
Observation: ?d
1847-11-08
(1 row)
Thought: Born in 1847.
Final Answer: 1847
`,
};

export const fixtureLibrary: SolutionProcess[] = Object.entries(texts).map(([id, text]) => parseProcess(text, id));

type DataOf = { [K in EventInput['type']]: Extract<EventInput, { type: K }>['data'] };

/** The data of every event of one type, typed by that type. */
export const ofType = <K extends EventInput['type']>(events: EventInput[], type: K): DataOf[K][] =>
  events.filter((e) => e.type === type).map((e) => e.data as DataOf[K]);

/**
 * A three-call agent run on the snapshot: search, Wikidata id, place-of-birth query, then "Chicago", which the query
 * row `place: Q1297 (Chicago)` verifies. For tests of what surfaces show about one well-evidenced answer.
 */
export const CHICAGO_QUESTION = 'In which city was the director of Forrest Gump born?';
export const chicagoAgentScript = () => ({
  agent: [
    ' I need the director of Forrest Gump.\nAction: wikisearch\nAction Input: Forrest Gump',
    ' The snippet names Robert Zemeckis. I need his id.\nAction: getWikidataID\nAction Input: Robert Zemeckis',
    ' Now his place of birth.\nAction: runQuery\nAction Input: SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }',
    ' Wikidata says Chicago.\nFinal Answer: Chicago',
  ],
  parametric: ['Chicago'],
  final: ['Chicago'],
});
