import { foldText } from './qald-values';

/**
 * Names of the gold entities, fetched once from a Wikidata API (`wbgetentities`) and kept beside the
 * results so that re-scoring is offline and repeatable. Per entity and language: the label first, then
 * the aliases. An entity fetched without names in a language has an empty list (so it is not fetched again).
 */
export interface QaldLabelTable {
  /** The API the names came from. */
  api?: string;
  fetchedAt?: string;
  entities: Record<string, Record<string, string[]>>;
}

const ENTITY = /^http:\/\/www\.wikidata\.org\/entity\/(Q\d+)$/;

/** The Q-id of a canonical Wikidata entity IRI, else undefined. */
export const qidOf = (iri: string): string | undefined => ENTITY.exec(iri)?.[1];

/** The Q-ids behind a list of gold answers (IRIs only). */
export const goldQids = (answers: readonly string[]): string[] =>
  answers.map(qidOf).filter((q): q is string => q !== undefined);

/** Folded name → the gold IRIs that carry it, for one question in one language. */
export type NameIndex = Map<string, string[]>;

export const nameIndex = (goldIris: readonly string[], table: QaldLabelTable | undefined, language: string): NameIndex => {
  const index: NameIndex = new Map();
  if (!table) return index;
  for (const iri of goldIris) {
    const q = qidOf(iri);
    if (!q) continue;
    for (const name of table.entities[q]?.[language] ?? []) {
      const key = foldText(name);
      if (!key) continue;
      const list = index.get(key) ?? [];
      if (!list.includes(iri)) list.push(iri);
      index.set(key, list);
    }
  }
  return index;
};

/** The Q-ids of `wanted` that the table has no entry for in `language`. */
export const missingFromTable = (table: QaldLabelTable, wanted: Iterable<string>, language: string): string[] =>
  [...new Set(wanted)].filter((q) => table.entities[q]?.[language] === undefined);
