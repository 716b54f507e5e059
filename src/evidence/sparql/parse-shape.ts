import { Cursor, type Nested } from './shape/cursor';
import { group, values } from './shape/groups';
import { askQuery, selectQuery } from './shape/query';
import type { Token } from './tokenize';
import type { QueryShape } from './query-shape';

export { ShapeError } from './shape/cursor';

const nested: Nested = { group, select: selectQuery };

/**
 * A recursive-descent parser for the graph-pattern part of SPARQL 1.1 queries (SELECT and ASK), over the tokens of
 * tokenize.ts. It reads triples with `;` `,` `[]` and collections (shape/triples.ts), property paths (shape/paths.ts),
 * groups, UNION, OPTIONAL, MINUS, GRAPH, SERVICE, BIND and VALUES (shape/groups.ts), FILTER with EXISTS
 * (shape/expressions.ts) and subqueries (shape/query.ts), all moving one cursor (shape/cursor.ts). Depth is bounded by
 * the caller's structural limits before this runs, so recursion here cannot overflow.
 */
export const parseShape = (sig: Token[], declared: Map<string, string>): QueryShape => {
  const c = new Cursor(sig, declared, nested);
  // Prologue, form, body, modifiers, trailing VALUES.
  while (c.atWord('PREFIX', 'BASE')) c.skip(c.atWord('PREFIX') ? 3 : 2);
  const shape = c.atWord('ASK') ? askQuery(c) : selectQuery(c);
  if (c.atWord('VALUES')) {
    c.skip();
    shape.values = values(c);
  }
  if (c.peek()) c.fail('unexpected text after the query');
  return shape;
};
