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

const nameList = z.array(z.string()).optional();
/** The same fields as a plain JSON Schema for a reply schema (the reading schema above coerces what it reads). */
export const kgEntitiesShape = z.object({
  company: nameList,
  ticker: nameList,
  movie: nameList,
  person: nameList,
  artist: nameList,
  song: nameList,
  team: nameList,
  entity: nameList,
  sport: z.enum(['soccer', 'nba']).optional(),
  date: z.string().optional().meta({ description: 'a date the question names, as written' }),
  year: z.string().optional().meta({ description: 'a four-digit year the question names' }),
});

/** The fields a reply gave, empty ones dropped (what the rules read). */
export const presentEntities = (entities: KgEntities): KgEntities =>
  Object.fromEntries(Object.entries(entities).filter(([, v]) => v !== undefined && !(Array.isArray(v) && !v.length))) as KgEntities;

/** The JSON object in a reply (bare, fenced or inside prose), unvalidated; undefined when there is none. */
export const entitiesJsonIn = (reply: string): unknown => {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(reply.slice(start, end + 1));
  } catch {
    return undefined;
  }
};
