import { checkCost, costAdvice, type GraphStats } from './cost';
import { checkValuesSize } from './limits';
import { parseShape } from './parse-shape';
import type { Pattern, QueryShape } from './query-shape';
import { declaredPrefixes } from './safety';
import { significant, tokenize } from './tokenize';

const valuesCells = (p: Pattern | undefined): number => {
  if (!p) return 0;
  switch (p.kind) {
    case 'values':
      return p.rows * Math.max(1, p.vars.length);
    case 'group':
      return p.items.reduce((n, x) => n + valuesCells(x), 0);
    case 'union':
      return p.branches.reduce((n, x) => n + valuesCells(x), 0);
    case 'optional':
    case 'minus':
      return valuesCells(p.group);
    case 'filter':
    case 'bind':
      return p.exists.reduce((n, x) => n + valuesCells(x), 0);
    case 'subquery':
      return shapeCells(p.query);
    default:
      return 0;
  }
};
const shapeCells = (q: QueryShape) => valuesCells(q.where) + valuesCells(q.values);

/**
 * Checks a prepared query against the store's statistics before it runs: VALUES size, then the estimated rows
 * (cost.ts). A query this parser does not understand is left to the engine, whose work meter still bounds it.
 */
export const checkBudget = (query: string, stats: GraphStats, maxRows?: number): void => {
  const shape = shapeOf(query);
  if (!shape) return;
  checkValuesSize(shapeCells(shape));
  checkCost(shape, stats, maxRows);
};

/** What in this query makes it expensive, for a query the engine had to stop (empty when nothing stands out). */
export const explainCost = (query: string, stats: GraphStats): string => {
  const shape = shapeOf(query);
  return shape ? costAdvice(shape, stats).join(' ') : '';
};

const shapeOf = (query: string): QueryShape | null => {
  try {
    const sig = significant(tokenize(query));
    return parseShape(sig, declaredPrefixes(sig));
  } catch {
    return null;
  }
};
