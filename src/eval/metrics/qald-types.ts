/** QALD question types, read from the gold query and its answers (the file's own `answertype` is often missing). */
export const QALD_TYPES = ['ask', 'count', 'single entity', 'list', 'literal'] as const;
export type QaldType = (typeof QALD_TYPES)[number];

const ENTITY = /^https?:\/\/(?:www\.)?wikidata\.org\/(?:entity|wiki)\/Q\d+$/;
const PREFIXES = /^\s*(?:(?:PREFIX|BASE)\s+\S*\s*<[^>]*>\s*)*/i;

/**
 * ask: an ASK query (or a boolean gold); count: a COUNT in the projection; then by the gold answers — literal when
 * any is a value rather than an entity, single entity for one entity, list for several. An empty gold set falls
 * back on the query: `LIMIT 1` asks for a single entity, anything else for a list.
 */
export const qaldQuestionType = (sparql: string | undefined, answers: readonly string[], boolean?: boolean): QaldType => {
  const q = (sparql ?? '').replace(PREFIXES, '');
  if (boolean !== undefined || /^ASK\b/i.test(q)) return 'ask';
  const projection = /SELECT\s+([\s\S]*?)\s*(?:FROM\b|WHERE\b|\{)/i.exec(q)?.[1] ?? '';
  if (/\bCOUNT\s*\(/i.test(projection)) return 'count';
  if (answers.length === 0) return /\bLIMIT\s+1\b/i.test(q) ? 'single entity' : 'list';
  if (answers.some((a) => !ENTITY.test(a))) return 'literal';
  return answers.length === 1 ? 'single entity' : 'list';
};
