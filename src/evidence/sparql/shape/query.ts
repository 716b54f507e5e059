import { isWord } from '../tokenize';
import type { Pattern, QueryShape } from '../query-shape';
import type { Cursor } from './cursor';
import { constraint, skipCall } from './expressions';
import { group } from './groups';
import { term } from './terms';

const AGGREGATES = ['COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'SAMPLE', 'GROUP_CONCAT'];
const MODIFIER_WORDS = ['GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'VALUES'];

const atModifierEnd = (c: Cursor) => !c.peek() || c.atWord(...MODIFIER_WORDS) || c.at('}');

/** After GROUP BY or ORDER BY: variables, and expressions or ASC(...)/DESC(...) calls, skipped. */
const conditions = (c: Cursor, exists: Pattern[]) => {
  while (!atModifierEnd(c)) {
    const t = c.peek();
    if (t.type === 'var') c.skip();
    else if (isWord(t, 'ASC', 'DESC') || t.type === 'word' || t.type === 'iri' || t.type === 'pname') {
      c.skip();
      skipCall(c, exists);
    } else if (t.text === '(') skipCall(c, exists);
    else c.fail('expected a sort or group condition');
  }
};

/** GROUP BY, HAVING, ORDER BY, LIMIT and OFFSET, in any order, until something else comes. */
const modifiers = (c: Cursor, shape: QueryShape, exists: Pattern[]) => {
  for (;;) {
    const t = c.peek();
    if (isWord(t, 'GROUP', 'ORDER')) {
      c.skip();
      c.take('BY');
      shape.materialises = true;
      conditions(c, exists);
    } else if (isWord(t, 'HAVING')) {
      c.skip();
      shape.materialises = true;
      while (!atModifierEnd(c)) constraint(c, exists);
    } else if (isWord(t, 'LIMIT', 'OFFSET')) {
      c.skip();
      const n = c.peek();
      if (n?.type !== 'number') c.fail(`${t.text.toUpperCase()} must be followed by a number`);
      c.skip();
      if (isWord(t, 'LIMIT')) shape.limit = Number(n.text);
    } else return;
  }
};

/** FROM / FROM NAMED clauses (skipped), then the WHERE group. */
const datasetAndWhere = (c: Cursor, shape: QueryShape) => {
  while (c.atWord('FROM')) {
    c.skip();
    if (c.atWord('NAMED')) c.skip();
    term(c);
  }
  if (c.atWord('WHERE')) c.skip();
  shape.where = group(c);
};

/** The projection after SELECT [DISTINCT|REDUCED]: `*`, or variables and `(expression AS ?v)`. */
const projection = (c: Cursor, shape: QueryShape, exists: Pattern[]) => {
  if (c.at('*')) {
    c.skip();
    shape.projected = '*';
    return;
  }
  const projected: string[] = [];
  while (c.peek() && !c.at('{') && !c.atWord('WHERE', 'FROM')) {
    const t = c.peek();
    if (t.type === 'var') {
      projected.push(t.text.slice(1));
      c.skip();
    } else if (t.text === '(') {
      const from = c.pos;
      skipCall(c, exists);
      if (c.sig.slice(from, c.pos).some((x) => isWord(x, ...AGGREGATES))) shape.materialises = true;
      const v = c.peek(-2);
      if (v?.type === 'var' && isWord(c.peek(-3), 'AS')) projected.push(v.text.slice(1));
    } else c.fail('expected a variable or (expression AS ?variable) after SELECT');
  }
  if (!projected.length) c.fail('SELECT names no variable');
  shape.projected = projected;
};

/** A SELECT query or subquery; EXISTS patterns in its expressions join its WHERE as a filter. */
export const selectQuery = (c: Cursor): QueryShape => {
  c.take('SELECT');
  const shape: QueryShape = { form: 'SELECT', where: { kind: 'group', items: [] }, projected: [], materialises: false };
  const exists: Pattern[] = [];
  if (c.atWord('DISTINCT', 'REDUCED')) c.skip();
  projection(c, shape, exists);
  datasetAndWhere(c, shape);
  modifiers(c, shape, exists);
  if (exists.length) shape.where = { kind: 'group', items: [shape.where, { kind: 'filter', exists }] };
  return shape;
};

/** An ASK query. EXISTS patterns in its modifiers are parsed and left out of the shape. */
export const askQuery = (c: Cursor): QueryShape => {
  c.take('ASK');
  const shape: QueryShape = { form: 'ASK', where: { kind: 'group', items: [] }, projected: [], materialises: false };
  datasetAndWhere(c, shape);
  modifiers(c, shape, []);
  return shape;
};
