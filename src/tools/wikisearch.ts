import * as z from 'zod';
import { clip, dropKey, field, firstInput, jsonIn, unwrap } from './parse-input';
import type { Tool } from './types';

const input = z.object({
  query: z.string().trim().min(1, 'wikisearch needs a search query').max(300).meta({ description: 'search keywords, e.g. "director of Forrest Gump"' }),
});
type Input = z.infer<typeof input>;

/** `wikisearch(query)`: the best matching page titles with a snippet each. */
export const wikisearch: Tool<Input> = {
  name: 'wikisearch',
  description: 'Search Wikipedia. Input: search keywords. Output: up to 5 page titles with snippets; pass a title to read.',
  schemaDescription: 'Search Wikipedia for `query`. Returns up to 5 page titles, each with a snippet; give a title to read or getWikidataID.',
  input,
  toText: ({ query }) => query,
  fromText(text) {
    const raw = firstInput(text);
    const query = field(jsonIn(raw), ['query', 'q', 'search', 'input']) ?? unwrap(dropKey(unwrap(raw), ['query', 'search']));
    return input.parse({ query });
  },
  async execute(ctx, { query }) {
    const hits = await ctx.evidence.search(query, 5);
    if (!hits.length) return `No Wikipedia page matched "${query}". Try fewer or different keywords.`;
    return hits.map((h, i) => `${i + 1}. ${h.title} — ${clip(h.snippet, 240)}`).join('\n');
  },
};
