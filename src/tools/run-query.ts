import * as z from 'zod';
import { entityIdOf } from '../evidence/shared/entities';
import type { SparqlTerm } from '../evidence/types';
import { extractQuery } from './generate-query';
import { clip, field, firstInput, jsonIn } from './parse-input';
import type { Tool } from './types';

const input = z.object({ sparql: z.string().trim().min(1, 'runQuery needs a SPARQL query').max(8000).meta({ description: 'a SPARQL SELECT or ASK query' }) });
type Input = z.infer<typeof input>;

const MAX_ROWS_SHOWN = 25;
const MAX_CHARS = 4_000;
const MAX_LABELLED_IDS = 60;

const showTerm = (t: SparqlTerm | undefined, labels: Map<string, string>): string => {
  if (!t) return '';
  const id = entityIdOf(t);
  if (id) return labels.has(id) ? `${id} (${labels.get(id)})` : id;
  // WDQS dates carry a midnight time; the date alone is what a reader wants.
  const v = t.type === 'literal' ? t.value.replace(/^(-?\d{4,}-\d{2}-\d{2})T00:00:00Z$/, '$1') : t.value;
  return clip(v.replace(/\s+/g, ' '), 200);
};

/** `runQuery(sparql)`: runs a checked query and shows a compact table with entity labels resolved. */
export const runQuery: Tool<Input> = {
  name: 'runQuery',
  description: 'Run a SPARQL query on Wikidata (SELECT or ASK). Input: the query. Output: the result rows, entity ids shown with labels.',
  schemaDescription: 'Run `sparql` (SELECT or ASK) on Wikidata. Returns the result rows, each entity id with its label, or the ASK result.',
  input,
  toText: ({ sparql }) => sparql,
  fromText(text) {
    // A query may legitimately contain "#" and brackets, so no unwrapping beyond fences, JSON and quotes.
    const raw = firstInput(text);
    const fromJson = field(jsonIn(raw), ['sparql', 'query']);
    let q = fromJson ?? extractQuery(raw);
    if (/^(["'`]).*\1$/s.test(q)) q = q.slice(1, -1);
    return input.parse({ sparql: q });
  },
  async execute(ctx, { sparql }) {
    const results = await ctx.evidence.sparql(sparql);
    if (!('results' in results)) return `ASK result: ${results.boolean ? 'yes (true)' : 'no (false)'}`;
    const rows = results.results.bindings;
    if (!rows.length) return 'No results. Check the ids and properties (getLabel, or generateQuery to see what the entity has).';
    const ids = new Set<string>();
    for (const row of rows.slice(0, MAX_ROWS_SHOWN)) for (const t of Object.values(row)) {
      const id = entityIdOf(t);
      if (id && ids.size < MAX_LABELLED_IDS) ids.add(id);
    }
    const labels = new Map(
      (await ctx.evidence.labels([...ids]).catch(() => [])).filter((l) => l.label).map((l) => [l.id, l.label!]),
    );
    const vars = results.head.vars;
    const lines = [vars.map((v) => `?${v}`).join(' | ')];
    let shown = 0;
    for (const row of rows.slice(0, MAX_ROWS_SHOWN)) {
      const line = vars.map((v) => showTerm(row[v], labels)).join(' | ');
      if (lines.join('\n').length + line.length > MAX_CHARS) break;
      lines.push(line);
      shown++;
    }
    const more = shown < rows.length || results.truncated;
    lines.push(more ? `(showing ${shown} of ${rows.length}${results.truncated ? '+' : ''} rows)` : `(${rows.length} row${rows.length === 1 ? '' : 's'})`);
    return lines.join('\n');
  },
};
