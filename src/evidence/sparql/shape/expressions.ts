import { isWord } from '../tokenize';
import type { Pattern } from '../query-shape';
import type { Cursor } from './cursor';

/**
 * Expressions are skipped: nothing in them multiplies rows, except the patterns inside EXISTS, which run once per row
 * and are collected into `exists`.
 */

/** At "(": skips to the matching ")". */
export const skipCall = (c: Cursor, exists: Pattern[]) => {
  c.take('(');
  let depth = 1;
  while (depth > 0) {
    const t = c.peek();
    if (!t) c.fail('a "(" is never closed');
    if (isWord(t, 'EXISTS') && c.peek(1)?.text === '{') {
      c.skip();
      exists.push(c.nested.group(c));
      continue;
    }
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (t.text === '{' || t.text === '}') c.fail('unexpected brace inside an expression');
    c.skip();
  }
};

/** What follows FILTER or HAVING: a bracketted expression, [NOT] EXISTS { ... }, or a function call. */
export const constraint = (c: Cursor, exists: Pattern[]) => {
  if (c.at('(')) return skipCall(c, exists);
  if (c.atWord('NOT') && isWord(c.peek(1), 'EXISTS')) c.skip();
  if (c.atWord('EXISTS')) {
    c.skip();
    exists.push(c.nested.group(c));
    return;
  }
  const t = c.peek();
  if (t && (t.type === 'word' || t.type === 'iri' || t.type === 'pname') && c.peek(1)?.text === '(') {
    c.skip();
    return skipCall(c, exists);
  }
  c.fail('expected a constraint after FILTER');
};
