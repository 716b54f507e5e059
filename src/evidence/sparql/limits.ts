import { EvidenceError } from '../types';
import type { Token } from './tokenize';

/**
 * Size limits checked on the tokens before anything parses or runs the query. The engine's parser and evaluator
 * recurse once per level of nesting and once per operator of a chain (`1+1+…`, `{…} UNION {…} UNION …`), and a
 * deep enough query overflows its stack ("memory access out of bounds"). Real questions stay far below these.
 */
export const QUERY_LIMITS = {
  /** Characters of query text. */
  chars: 10_000,
  /** Nesting of { } ( ) [ ] combined. */
  depth: 24,
  /** Operators in expressions and property paths, and UNIONs, in the whole query. */
  operators: 150,
  /** Cells (rows × variables) of all VALUES blocks. */
  valuesCells: 2_000,
} as const;

const OPEN = new Set(['{', '(', '[']);
const CLOSE = new Set(['}', ')', ']']);
const OPERATORS = new Set(['+', '-', '*', '/', '&&', '||', '=', '!=', '<', '>', '<=', '>=', '!', '|', '^']);

export const checkLimits = (query: string, sig: Token[]): void => {
  if (query.length > QUERY_LIMITS.chars) {
    throw new EvidenceError(
      `Refused: the query is ${query.length.toLocaleString('en-US')} characters long; at most ${QUERY_LIMITS.chars.toLocaleString('en-US')} are allowed. Ask for less at once.`,
      'refused',
    );
  }
  let depth = 0;
  let deepest = 0;
  let operators = 0;
  for (const t of sig) {
    if (OPEN.has(t.text)) deepest = Math.max(deepest, ++depth);
    else if (CLOSE.has(t.text)) depth--;
    else if (t.type === 'punct' && OPERATORS.has(t.text)) operators++;
    else if (t.type === 'word' && t.text.toUpperCase() === 'UNION') operators++;
  }
  if (deepest > QUERY_LIMITS.depth) {
    throw new EvidenceError(
      `Refused: the query nests groups or parentheses ${deepest} levels deep; at most ${QUERY_LIMITS.depth} are allowed. Flatten it: a group inside a group adds nothing.`,
      'refused',
    );
  }
  if (operators > QUERY_LIMITS.operators) {
    throw new EvidenceError(
      `Refused: the query has ${operators} operators and UNIONs; at most ${QUERY_LIMITS.operators} are allowed. Split it into smaller queries or use VALUES for lists of alternatives.`,
      'refused',
    );
  }
};

export const checkValuesSize = (cells: number): void => {
  if (cells > QUERY_LIMITS.valuesCells) {
    throw new EvidenceError(
      `Refused: the VALUES blocks hold ${cells.toLocaleString('en-US')} cells; at most ${QUERY_LIMITS.valuesCells.toLocaleString('en-US')} are allowed. Ask about fewer items at once.`,
      'refused',
    );
  }
};
