import { toEntityId } from '../shared/entities';
import type { EntityLabel } from '../types';
import type { LiveHttp } from './http';

/** Wikidata keeps labels and descriptions to 250 characters; a mirror's longer ones are cut there. */
const LABEL_CHARS = 250;
const shortText = (value: unknown) => (typeof value === 'string' ? value.slice(0, LABEL_CHARS) : undefined);

/** Ids asked at most per request (the entity API's own limit), and in all per call. */
const IDS_PER_REQUEST = 50;
const MAX_IDS = 200;

type Entities = Record<string, { missing?: string; labels?: Record<string, { value: string }>; descriptions?: Record<string, { value: string }> }>;

/**
 * Labels and descriptions of Wikidata entities through the entity API (`wbgetentities`) at `api`, in the order asked;
 * an id the API does not know comes back with neither.
 */
export const entityLabels = (http: LiveHttp, o: { api: string; maxlag?: number }) => async (ids: string[], language = 'en'): Promise<EntityLabel[]> => {
  const lag: Record<string, string> = o.maxlag ? { maxlag: String(o.maxlag) } : {};
  const clean = [...new Set(ids.map(toEntityId).filter((x): x is string => !!x))].slice(0, MAX_IDS);
  const found = new Map<string, EntityLabel>();
  for (let i = 0; i < clean.length; i += IDS_PER_REQUEST) {
    const batch = clean.slice(i, i + IDS_PER_REQUEST);
    const url = new URL(o.api);
    const params = { action: 'wbgetentities', ids: batch.join('|'), props: 'labels|descriptions', languages: language, format: 'json', ...lag };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const data = (await http.getJson(url, undefined, 'entities')) as { entities?: Entities };
    // Only the entities asked for, however many came: a mirror may add thousands.
    for (const id of batch) {
      const e = data.entities?.[id];
      if (!e || typeof e !== 'object' || e.missing !== undefined) continue;
      found.set(id, { id, label: shortText(e.labels?.[language]?.value), description: shortText(e.descriptions?.[language]?.value) });
    }
  }
  return clean.map((id) => found.get(id) ?? { id });
};
