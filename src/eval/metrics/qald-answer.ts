import { qaldAnswerKey, qaldBooleanFromText } from './qald';
import { nameIndex, type NameIndex, type QaldLabelTable } from './qald-labels';
import { foldText, literalKey, snapToGoldDate } from './qald-values';

/** A Wikidata entity a run names as (part of) its answer. */
export interface AnswerEntity {
  id: string;
  label?: string;
}

export interface QaldSystemAnswer {
  /** The answer text ("A, B and C", "Bloemfontein", "Yes", "16 December 1773"). */
  text?: string;
  /** An explicit answer set (IRIs, Q-ids or literal values). */
  list?: readonly unknown[];
  /** The entities behind the answer, from the run. */
  entities?: readonly AnswerEntity[];
}

export interface QaldScoringContext {
  goldAnswers: readonly string[];
  boolean?: boolean;
  labels?: QaldLabelTable;
  language?: string;
}

const MAX_PIECES = 500;
const IS_IRI = /^(https?:\/\/|true$|false$)/;

/** The comparable key of a gold answer: IRIs and booleans as QALD writes them, literals as values. */
export const qaldGoldKey = (value: string): string => {
  const k = qaldAnswerKey(value);
  return IS_IRI.test(k) ? k : literalKey(k);
};

const NON_ANSWER = /^(i\s+(do\s+not|don'?t)\s+know|unknown|none|n\/a|no answer|not found)\b/i;

const clean = (s: string) => s.trim().replace(/^(?:[-*•]|\d+[.)])\s+/, '').replace(/^["'“„«]+|["'”»]+$/g, '').replace(/[.!]+$/, '').trim();

/** Splits on list separators that cannot occur inside a value: semicolons, new lines, and a comma followed by a space. */
const coarsePieces = (text: string) => text.split(/\s*(?:;|\n|,\s)\s*/).map(clean).filter(Boolean).slice(0, MAX_PIECES);
const conjunctionPieces = (text: string) => text.split(/\s+(?:and|und|et|&)\s+/i).map(clean).filter(Boolean);

/**
 * Greedy longest match: the longest run of pieces that names a gold answer is taken as one item, so
 * "Washington, D.C." or "Bosnia and Herzegovina" survive list splitting when they are gold; what names
 * nothing is split further (then on "and") and kept as a wrong item.
 */
const itemsOf = (pieces: readonly string[], joiner: string, resolve: (s: string) => string[] | undefined, rest: (s: string) => string[]): string[] => {
  const keys: string[] = [];
  for (let i = 0; i < pieces.length; ) {
    let taken = 0;
    for (let j = pieces.length; j > i; j--) {
      const hit = resolve(pieces.slice(i, j).join(joiner));
      if (hit) {
        keys.push(...hit);
        taken = j - i;
        break;
      }
    }
    if (!taken) {
      keys.push(...rest(pieces[i]));
      taken = 1;
    }
    i += taken;
  }
  return keys;
};

/**
 * The system's answer set for one QALD question, in the keys of `qaldGoldKey`:
 * - entities from the run count as IRIs; a text item an entity names counts once (as the entity when it is gold,
 *   else as the gold name or value it matches, else as the entity);
 * - every other text item is mapped to a gold IRI through the label table (labels and aliases in the
 *   question's language), or to a gold literal by value; anything else stays as a wrong item;
 * - for a yes/no question the leading yes/no word is the answer;
 * - "I don't know" and empty text are the empty answer.
 */
export const qaldSystemKeys = (answer: QaldSystemAnswer, ctx: QaldScoringContext): Set<string> => {
  const gold = new Set(ctx.goldAnswers.map(qaldGoldKey));
  const names: NameIndex = nameIndex(ctx.goldAnswers.map(qaldAnswerKey), ctx.labels, ctx.language ?? 'en');
  const compact = (s: string) => foldText(s).replace(/ /g, '');
  const entityByName = new Map<string, string>();
  for (const e of answer.entities ?? []) {
    const name = compact(e.label ?? '');
    if (name && !entityByName.has(name)) entityByName.set(name, qaldAnswerKey(e.id));
  }
  /** Entities some text item named: each is counted through that item, not again on its own. */
  const named = new Set<string>();
  const valueKey = (s: string) => snapToGoldDate(qaldGoldKey(s), gold);

  /**
   * The keys a piece of text stands for, undefined when it names nothing. An entity the run linked to the piece wins
   * when it is gold; otherwise a gold name or value the piece matches wins (a literal answer such as a birth name must
   * not lose to the person's item the lookup found); otherwise the run's entity counts, right or wrong.
   */
  const resolve = (s: string): string[] | undefined => {
    const folded = foldText(s);
    if (!folded) return [];
    const name = folded.replace(/ /g, '');
    const entity = entityByName.get(name);
    if (entity) named.add(name);
    if (entity && gold.has(entity)) return [entity];
    const byName = names.get(folded);
    if (byName) return byName;
    const k = valueKey(s);
    if (gold.has(k)) return [k];
    return entity ? [entity] : undefined;
  };
  const wrong = (s: string) => (foldText(s) ? [valueKey(s)] : []);
  const withUnnamedEntities = (keys: string[]) =>
    new Set([...keys, ...[...entityByName].filter(([name]) => !named.has(name)).map(([, iri]) => iri)]);

  if (answer.list) return withUnnamedEntities(answer.list.map((v) => String(v)).flatMap((v) => resolve(v) ?? wrong(v)));
  const text = (answer.text ?? '').trim();
  if (!text || NON_ANSWER.test(text)) return withUnnamedEntities([]);
  const isBoolean = ctx.boolean !== undefined || (gold.size === 1 && (gold.has('true') || gold.has('false')));
  if (isBoolean) {
    const b = qaldBooleanFromText(text);
    return new Set([b ?? valueKey(text)]);
  }
  const whole = resolve(clean(text));
  if (whole) return withUnnamedEntities(whole);
  return withUnnamedEntities(itemsOf(coarsePieces(text), ', ', resolve, (piece) => itemsOf(conjunctionPieces(piece), ' and ', resolve, wrong)));
};
