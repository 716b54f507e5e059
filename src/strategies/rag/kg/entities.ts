import * as z from 'zod';

const names = z
  .union([z.string(), z.array(z.unknown())])
  .transform((v) => (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string'))
  .transform((v) => [...new Set(v.map((x) => x.trim().slice(0, 120)).filter(Boolean))].slice(0, 3))
  .optional()
  .catch(undefined);
const text = z.string().trim().max(20).optional().catch(undefined);

/** What the entity extractor found; every field optional, lists capped at three names. */
export const kgEntitiesSchema = z.object({
  company: names,
  ticker: names,
  movie: names,
  person: names,
  artist: names,
  song: names,
  team: names,
  entity: names,
  sport: z.enum(['soccer', 'nba']).optional().catch(undefined),
  date: text,
  year: z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(/^\d{4}$/)).optional().catch(undefined),
});

export type KgEntities = z.infer<typeof kgEntitiesSchema>;

/** The JSON object in a reply (bare, fenced or inside prose); {} when there is none or it does not parse. */
export const parseEntities = (reply: string): KgEntities => {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start < 0 || end <= start) return {};
  try {
    const parsed = kgEntitiesSchema.safeParse(JSON.parse(reply.slice(start, end + 1)));
    if (!parsed.success) return {};
    return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined && !(Array.isArray(v) && !v.length))) as KgEntities;
  } catch {
    return {};
  }
};
