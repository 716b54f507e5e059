import * as z from 'zod';
import { field, firstInput, jsonIn, unwrap, dropKey } from './parse-input';
import type { Tool } from './types';

const input = z.object({
  titles: z
    .array(z.string().trim().min(1).max(300))
    .min(1, 'getWikidataID needs a page title')
    .max(10)
    .meta({ description: 'exact Wikipedia page titles, 1 to 10' }),
});
type Input = z.infer<typeof input>;

/** `getWikidataID(title)`: the Q-id of a Wikipedia page's item. Several titles may be separated by `|` or `;`. */
export const getWikidataID: Tool<Input> = {
  name: 'getWikidataID',
  description: 'Get the Wikidata id (QID) of a Wikipedia page. Input: the exact page title (several separated by "|"). Output: title: QID.',
  schemaDescription: 'The Wikidata item id (QID) of each Wikipedia page in `titles`. Returns one line per title: `title: QID`.',
  input,
  toText: ({ titles }) => titles.join(' | '),
  fromText(text) {
    const raw = firstInput(text);
    const json = jsonIn(raw);
    let titles: string[];
    if (Array.isArray(json)) titles = json.map(String);
    else {
      const one = field(json, ['title', 'titles', 'page', 'input']) ?? dropKey(unwrap(raw), ['title', 'page']);
      // Commas stay: titles such as "Paris, Texas" contain them.
      titles = one.split(/\s*[|;]\s*|\n/);
    }
    return input.parse({ titles: titles.map(unwrap).filter(Boolean) });
  },
  async execute(ctx, { titles }) {
    const lines = await Promise.all(
      titles.map(async (t) => {
        const id = await ctx.evidence.wikidataId(t);
        return id ? `${t}: ${id}` : `${t}: no Wikidata item found (check the exact title with wikisearch)`;
      }),
    );
    return lines.join('\n');
  },
};
