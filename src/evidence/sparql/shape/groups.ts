import { isWord } from '../tokenize';
import type { Pattern } from '../query-shape';
import type { Cursor } from './cursor';
import { constraint, skipCall } from './expressions';
import { term } from './terms';
import { triples } from './triples';

/** One VALUES cell: a term or UNDEF. */
const cell = (c: Cursor, unclosed: string) => {
  if (!c.peek()) c.fail(unclosed);
  if (c.atWord('UNDEF')) c.skip();
  else term(c);
};

/** After VALUES: `?v { a b }` or `(?a ?b) { (1 2) (3 4) }`; only its size matters. */
export const values = (c: Cursor): Pattern => {
  const vars: string[] = [];
  let rows = 0;
  if (c.peek()?.type === 'var') {
    vars.push(c.peek().text.slice(1));
    c.skip();
    c.take('{');
    for (; !c.at('}'); rows++) cell(c, 'VALUES is never closed');
    c.skip();
    return { kind: 'values', vars, rows };
  }
  c.take('(');
  while (c.peek()?.type === 'var') vars.push(c.next().text.slice(1));
  c.take(')');
  c.take('{');
  for (; c.at('('); rows++) {
    c.skip();
    while (!c.at(')')) cell(c, 'a VALUES row is never closed');
    c.skip();
  }
  c.take('}');
  return { kind: 'values', vars, rows };
};

/** BIND ( expression AS ?v ): the variable is the token before the closing parenthesis. */
const bind = (c: Cursor): Pattern => {
  const exists: Pattern[] = [];
  const open = c.pos;
  skipCall(c, exists);
  const v = c.peek(-2);
  if (v?.type !== 'var' || !isWord(c.peek(-3), 'AS') || c.pos - 3 <= open) c.fail('expected BIND(expression AS ?variable)');
  return { kind: 'bind', variable: v.text.slice(1), exists };
};

const filter = (c: Cursor): Pattern => {
  const exists: Pattern[] = [];
  constraint(c, exists);
  return { kind: 'filter', exists };
};

/** GRAPH and SERVICE name a graph or an endpoint; the cost is the group's. */
const namedGroup = (c: Cursor): Pattern => {
  term(c);
  return group(c);
};

/** The items a keyword starts inside a group, read after the keyword. */
const KEYWORD_ITEMS = new Map<string, (c: Cursor) => Pattern>([
  ['OPTIONAL', (c) => ({ kind: 'optional', group: group(c) })],
  ['MINUS', (c) => ({ kind: 'minus', group: group(c) })],
  ['GRAPH', namedGroup],
  [
    'SERVICE',
    (c) => {
      if (c.atWord('SILENT')) c.skip();
      return namedGroup(c);
    },
  ],
  ['FILTER', filter],
  ['BIND', bind],
  ['VALUES', values],
]);

/** `{ ... } UNION { ... } ...`, or the one group when no UNION follows. */
const unionOrGroup = (c: Cursor): Pattern => {
  const branches = c.separated(() => group(c), () => c.atWord('UNION'));
  return branches.length === 1 ? branches[0] : { kind: 'union', branches };
};

/** One item of a group, appended to `items`: a separator, a nested group or UNION, a keyword's item, or triples. */
const groupItem = (c: Cursor, items: Pattern[]) => {
  const t = c.peek();
  const keyword = t.type === 'word' ? KEYWORD_ITEMS.get(t.text.toUpperCase()) : undefined;
  if (t.text === '.') c.skip();
  else if (t.text === '{') items.push(unionOrGroup(c));
  else if (keyword) {
    c.skip();
    items.push(keyword(c));
  } else triples(c, items);
};

/** `{ ... }`: a group graph pattern, or a subquery when it starts with SELECT. */
export function group(c: Cursor): Pattern {
  c.take('{');
  if (c.atWord('SELECT')) {
    const query = c.nested.select(c);
    c.take('}');
    return { kind: 'group', items: [{ kind: 'subquery', query }] };
  }
  const items: Pattern[] = [];
  while (!c.at('}')) {
    if (!c.peek()) c.fail('a "{" is never closed');
    groupItem(c, items);
  }
  c.skip();
  return { kind: 'group', items };
}
