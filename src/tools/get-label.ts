import * as z from 'zod';
import { clip, entityIds, firstInput } from './parse-input';
import type { Tool } from './types';

const input = z.object({
  ids: z
    .array(z.string().regex(/^[QP]\d+$/, 'ids look like Q42 or P31'))
    .min(1, 'getLabel needs ids such as Q42, P31')
    .max(25)
    .meta({ description: 'Wikidata ids such as Q42 or P31, 1 to 25' }),
});
type Input = z.infer<typeof input>;

/** `getLabel(ids)`: `Q42: Douglas Adams — English author…` per id. */
export const getLabel: Tool<Input> = {
  name: 'getLabel',
  description: 'Get the English label and description of Wikidata ids. Input: ids such as "Q42, P31". Output: one line per id.',
  schemaDescription: 'The English label and description of each Wikidata id in `ids`. Returns one line per id: `Q42: Douglas Adams — English author`.',
  input,
  toText: ({ ids }) => ids.join(', '),
  fromText(text) {
    return input.parse({ ids: entityIds(firstInput(text)).slice(0, 25) });
  },
  async execute(ctx, { ids }) {
    const labels = await ctx.evidence.labels(ids);
    return labels
      .map((l) => (l.label ? `${l.id}: ${l.label}${l.description ? ` — ${clip(l.description, 160)}` : ''}` : `${l.id}: no label found`))
      .join('\n');
  },
};
