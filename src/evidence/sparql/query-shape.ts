/**
 * The shape of a SPARQL query as far as its cost is concerned: which triple patterns and paths it joins, how groups
 * nest (UNION, OPTIONAL, MINUS, EXISTS, subqueries), how many VALUES rows it brings, and whether its solution
 * modifiers make the engine materialise every row (ORDER BY, GROUP BY, aggregates). Expressions are kept only for
 * the patterns inside EXISTS; everything else in them cannot multiply rows.
 */
export type Term = { kind: 'var'; name: string } | { kind: 'const'; iri?: string; text: string };

export type Path =
  | { kind: 'link'; iri: string; text: string }
  | { kind: 'inverse'; path: Path }
  | { kind: 'sequence'; parts: Path[] }
  | { kind: 'alternative'; parts: Path[] }
  | { kind: 'repeat'; path: Path; mod: '*' | '+' | '?' }
  | { kind: 'negated'; iris: string[]; text: string };

export interface TriplePattern {
  kind: 'triple';
  s: Term;
  /** A variable or constant predicate, or a property path. */
  p: Term | Path;
  o: Term;
  /** The pattern as written, shortened, for messages. */
  text: string;
}

export type Pattern =
  | TriplePattern
  | { kind: 'group'; items: Pattern[] }
  | { kind: 'union'; branches: Pattern[] }
  | { kind: 'optional'; group: Pattern }
  | { kind: 'minus'; group: Pattern }
  /** FILTER (and the EXISTS patterns inside it, which run once per row). */
  | { kind: 'filter'; exists: Pattern[] }
  | { kind: 'bind'; variable: string; exists: Pattern[] }
  | { kind: 'values'; vars: string[]; rows: number }
  | { kind: 'subquery'; query: QueryShape };

export interface QueryShape {
  form: 'SELECT' | 'ASK';
  where: Pattern;
  /** Variables the (sub)query returns; empty for ASK, all in-scope ones for `SELECT *`. */
  projected: string[] | '*';
  /** ORDER BY, GROUP BY, HAVING or an aggregate: every solution is produced before the first one is returned. */
  materialises: boolean;
  limit?: number;
  /** A trailing VALUES block, joined with the whole result. */
  values?: Pattern;
}

export const isPath = (p: Term | Path): p is Path => p.kind !== 'var' && p.kind !== 'const';

/** Variables a pattern can bind (a conservative superset: everything mentioned outside FILTER). */
export const patternVars = (p: Pattern, out = new Set<string>()): Set<string> => {
  switch (p.kind) {
    case 'triple':
      for (const t of [p.s, p.o, ...(isPath(p.p) ? [] : [p.p])]) if (t.kind === 'var') out.add(t.name);
      break;
    case 'group':
      p.items.forEach((i) => patternVars(i, out));
      break;
    case 'union':
      p.branches.forEach((b) => patternVars(b, out));
      break;
    case 'optional':
      patternVars(p.group, out);
      break;
    case 'bind':
      out.add(p.variable);
      break;
    case 'values':
      p.vars.forEach((v) => out.add(v));
      break;
    case 'subquery':
      if (p.query.projected === '*') patternVars(p.query.where, out);
      else p.query.projected.forEach((v) => out.add(v));
      break;
    default:
      break;
  }
  return out;
};
