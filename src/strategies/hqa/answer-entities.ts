import type { AnswerEntity, RunContext } from '../../engine/types';
import { isNonAnswer, listItems, normaliseItem } from './normalise';
import { labelsFromTrace, type Turn } from './trace';

/** Items of one answer linked at most (a list answer of 50 films links its first 25). */
const MAX_ITEMS = 25;
/** Longer items are sentences, not names: they are not looked up. */
const MAX_ITEM_WORDS = 10;

/** Values, not entities: yes/no, numbers, dates. */
const isValue = (item: string): boolean => {
  const n = normaliseItem(item);
  return n === 'yes' || n === 'no' || /^-?[\d\s.,/%-]+$/.test(n) || /^\d{1,4}-\d{2}(-\d{2})?$/.test(n);
};

/**
 * The items of an answer: the whole answer when a name in the trace carries it (so "Bosnia and Herzegovina"
 * is one item), else its list items.
 */
const itemsOf = (answer: string, known: Map<string, string>): string[] => {
  const whole = answer.trim().replace(/[.!]+$/, '');
  if (known.has(normaliseItem(whole))) return [whole];
  return listItems(whole).slice(0, MAX_ITEMS);
};

/** Normalised label → id, for every entity the trace named (query cells, getLabel, getWikidataID). */
const traceNames = (turns: readonly Turn[]): Map<string, string> => {
  const names = new Map<string, string>();
  for (const [id, label] of labelsFromTrace(turns)) {
    const key = normaliseItem(label);
    if (id.startsWith('Q') && key && !names.has(key)) names.set(key, id);
  }
  return names;
};

const dedupe = (entities: AnswerEntity[]): AnswerEntity[] => {
  const seen = new Set<string>();
  return entities.filter((e) => !seen.has(e.id) && !!seen.add(e.id));
};

/**
 * The Wikidata entities behind an answer, from what the run itself saw: an answer item whose name equals the
 * label of an entity in the trace (a query row, a getLabel or getWikidataID line) is that entity.
 * Returns the entities and the items left unlinked.
 */
export const entitiesFromTrace = (turns: readonly Turn[], answer: string): { entities: AnswerEntity[]; unlinked: string[] } => {
  if (isNonAnswer(answer)) return { entities: [], unlinked: [] };
  const names = traceNames(turns);
  const entities: AnswerEntity[] = [];
  const unlinked: string[] = [];
  for (const item of itemsOf(answer, names)) {
    if (isValue(item)) continue;
    const id = names.get(normaliseItem(item));
    if (id) entities.push({ id, label: item });
    else unlinked.push(item);
  }
  return { entities: dedupe(entities), unlinked };
};

/**
 * Entities of the answer: those the trace names, then the remaining short items linked with the same lookup
 * `getWikidataID` uses (exact page title / label). A failed lookup leaves the item unlinked; it never fails the run.
 */
export const answerEntities = async (ctx: RunContext, turns: readonly Turn[], answer: string): Promise<AnswerEntity[]> => {
  const { entities, unlinked } = entitiesFromTrace(turns, answer);
  const lookups = unlinked.filter((item) => item.split(/\s+/).length <= MAX_ITEM_WORDS);
  if (!lookups.length) return entities;
  let evidence;
  try {
    evidence = ctx.evidence();
  } catch {
    return entities;
  }
  const linked = await Promise.all(
    lookups.map(async (item): Promise<AnswerEntity | undefined> => {
      try {
        const id = await evidence.wikidataId(item);
        return id && /^Q\d+$/.test(id) ? { id, label: item } : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return dedupe([...entities, ...linked.filter((e): e is AnswerEntity => !!e)]);
};
