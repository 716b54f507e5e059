import { DATA_FENCE_RULE, fence } from '../text/prompt-data';
import * as z from 'zod';
import { checkQuery } from '../evidence/sparql/safety';
import { tokenize } from '../evidence/sparql/tokenize';
import { EvidenceError, type Evidence } from '../evidence/types';
import generatePrompt from './prompts/generate-query.txt';
import { clip, entityIds, field, firstInput, jsonIn, unwrap } from './parse-input';
import type { Tool } from './types';

const input = z.object({
  question: z.string().trim().max(1000).optional().meta({ description: 'the question the query must answer' }),
  entities: z
    .array(z.string().regex(/^[QP]\d+$/))
    .max(8)
    .default([])
    .meta({ description: 'Wikidata ids (Q42, P31) of the entities the question involves, up to 8; their real properties ground the query' }),
});
type Input = z.infer<typeof input>;

const MAX_ENTITIES = 5;
const MAX_PROPERTIES = 40;

const withoutIds = (text: string) =>
  text.replace(/(?:wd:)?(?<![A-Za-z0-9])[QP]\d+(?![0-9])/gi, ' ').replace(/[\s,;]+/g, ' ').replace(/^\W+$/, '').trim();

/** What the model needs to write a query that matches the graph: ids, labels, and the properties each entity has. */
export const describeEntities = async (evidence: Evidence, ids: string[]): Promise<string> => {
  const chosen = ids.slice(0, MAX_ENTITIES);
  const labels = await evidence.labels(chosen);
  const blocks = await Promise.all(
    labels.map(async (l) => {
      const head = `${l.id} — ${l.label ?? '(no label)'}${l.description ? ` (${l.description})` : ''}`;
      if (!l.id.startsWith('Q')) return head;
      const props = await evidence.properties(l.id, MAX_PROPERTIES).catch(() => []);
      const lines = props.map(
        (p) =>
          `  ${p.property} ${p.label ?? ''}: ${p.examples.join('; ')}${p.qualifiers?.length ? ` [qualifiers: ${p.qualifiers.join(', ')}]` : ''}`,
      );
      return lines.length ? `${head}\n  properties:\n${lines.join('\n')}` : `${head}\n  (no properties found)`;
    }),
  );
  return blocks.join('\n\n');
};

/** Pulls the query out of a reply that may wrap it in a code fence or lead with "SPARQL:". */
export const extractQuery = (reply: string): string => {
  const fence = /```(?:[a-zA-Z-]*[ \t]*\n|[ \t]*)([\s\S]*?)```/.exec(reply);
  // A fence that is opened but never closed (the reply was cut, or the closing line was dropped) still wraps the query.
  const open = fence ? undefined : /^\s*```(?:[a-zA-Z-]*[ \t]*\n|[ \t]*)([\s\S]*)$/.exec(reply);
  const body = fence ? fence[1] : open ? open[1] : reply;
  return body.replace(/^\s*(sparql|query)\s*:\s*/i, '').trim();
};

/** `generateQuery(question, entities)`: the model writes SPARQL grounded in the entities' real properties. */
export const generateQuery: Tool<Input> = {
  name: 'generateQuery',
  description:
    'Write a SPARQL query for a question. Input: "question # Q42, Q5" (the Wikidata ids of the entities involved). Output: the query, to run with runQuery.',
  schemaDescription:
    'Write a Wikidata SPARQL query for `question`, using the properties the entities in `entities` really have. Returns the query, to run with runQuery. Uses the configured model.',
  input,
  toText: ({ question, entities }) => (entities.length ? `${question ?? ''} # ${entities.join(', ')}` : (question ?? '')),
  fromText(text) {
    const raw = firstInput(text);
    const json = jsonIn(raw);
    if (json && typeof json === 'object' && !Array.isArray(json)) {
      const ents = field(json, ['entities', 'ids', 'entity']) ?? '';
      return input.parse({ question: field(json, ['question', 'query']), entities: entityIds(ents) });
    }
    const t = unwrap(raw);
    const parts = t.split(/\s*[#|]\s*/).map(unwrap).filter(Boolean);
    const idPart = parts.find((p) => entityIds(p).length && !withoutIds(p));
    const question = parts.length > 1 ? parts.filter((p) => p !== idPart).join(' ') : withoutIds(t);
    return input.parse({ question: question || undefined, entities: entityIds(idPart ?? t).slice(0, 8) });
  },
  async execute(ctx, { question, entities }) {
    const ask = question ?? ctx.question;
    if (!ask) throw new Error('generateQuery needs a question, e.g. "Where was Douglas Adams born? # Q42".');
    const grounding = entities.length
      ? await describeEntities(ctx.evidence, entities)
      : '(no entity ids given; find them with getWikidataID first for a better query)';
    const reply = await ctx.llm.chat({
      purpose: 'generateQuery',
      messages: [
        { role: 'system', content: `${generatePrompt.trim()}\n\n${DATA_FENCE_RULE}` },
        // Labels and descriptions come from Wikidata, the question from a stranger: both are data.
        { role: 'user', content: `${fence('QUESTION', ask)}\n\nEntities:\n${fence('ENTITIES', grounding)}` },
      ],
      maxTokens: 400,
    }, { signal: ctx.signal });
    const query = clip(extractQuery(reply.text), 4000);
    if (!query) return 'The model wrote no query. Try again with the entity ids of the question.';
    try {
      checkQuery(tokenize(query));
    } catch (err) {
      const why = err instanceof EvidenceError ? err.message : 'it does not parse';
      return `${query}\n\n(Note: this query would be refused by runQuery: ${why})`;
    }
    return query;
  },
};
