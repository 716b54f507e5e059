import type { AnswerEntity, RunContext } from '../../engine/types';
import { isNonAnswer, listItems, normaliseItem } from '../../text/answers';
import { labelsFromTrace, type Turn } from './trace';

/** Items of one answer linked at most (a list answer of 50 films links its first 25). */
const MAX_ITEMS = 25;
/** Lookups per answer: live evidence makes each one a request, and a Worker's subrequests are capped. */
const MAX_LOOKUPS = 20;
/** Longer items are sentences, not names: they are not looked up. */
const MAX_ITEM_WORDS = 10;

/** Values, not entities: yes/no, numbers, dates. */
const isValue = (item: string): boolean => {
  const n = normaliseItem(item);
  return n === 'yes' || n === 'no' || /^-?[\d\s.,/%-]+$/.test(n) || /^\d{1,4}-\d{2}(-\d{2})?$/.test(n);
};

/** Splits on commas, semicolons and new lines only; "and" is split later, when the whole piece names nothing. */
const piecesOf = (answer: string): string[] =>
  answer
    .trim()
    .replace(/[.!]+$/, '')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .split(/\s*[,;\n]\s*/)
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, MAX_ITEMS);

const conjuncts = (piece: string): string[] => (/\s(and|&)\s/i.test(piece) ? listItems(piece) : []);

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
  // A date, number or yes/no answer names no entity, even when its pieces ("June 11", "632") look like names.
  if (isNonAnswer(answer) || isValue(answer.trim().replace(/[.!]+$/, ''))) return { entities: [], unlinked: [] };
  const names = traceNames(turns);
  const entities: AnswerEntity[] = [];
  const unlinked: string[] = [];
  const whole = answer.trim().replace(/[.!]+$/, '');
  for (const piece of names.has(normaliseItem(whole)) ? [whole] : piecesOf(answer)) {
    if (isValue(piece)) continue;
    const id = names.get(normaliseItem(piece));
    if (id) entities.push({ id, label: piece });
    else if (conjuncts(piece).some((c) => names.has(normaliseItem(c)))) {
      for (const c of conjuncts(piece)) {
        const cid = names.get(normaliseItem(c));
        if (cid) entities.push({ id: cid, label: c });
        else if (!isValue(c)) unlinked.push(c);
      }
    } else unlinked.push(piece);
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
  let budget = MAX_LOOKUPS;
  const lookup = async (item: string): Promise<AnswerEntity | undefined> => {
    if (budget-- <= 0) return undefined;
    try {
      const id = await evidence.wikidataId(item);
      return id && /^Q\d+$/.test(id) ? { id, label: item } : undefined;
    } catch {
      return undefined;
    }
  };
  // A piece is looked up whole first ("Trinidad and Tobago"), then, if that names nothing, item by item.
  const linked = await Promise.all(
    lookups.map(async (piece): Promise<AnswerEntity[]> => {
      const one = await lookup(piece);
      if (one) return [one];
      const parts = conjuncts(piece).filter((c) => !isValue(c)).slice(0, 5);
      return (await Promise.all(parts.map(lookup))).filter((e): e is AnswerEntity => !!e);
    }),
  );
  return dedupe([...entities, ...linked.flat()]);
};
