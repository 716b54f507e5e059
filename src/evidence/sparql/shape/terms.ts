import { isWord } from '../tokenize';
import type { Term } from '../query-shape';
import type { Cursor } from './cursor';

/** A literal's language tag (`@en-GB`) or datatype (`^^xsd:date`), skipped: neither changes the cost. */
const literalSuffix = (c: Cursor) => {
  if (c.at('@')) {
    c.skip();
    if (c.peek()?.type !== 'word') c.fail('expected a language tag');
    c.skip();
    while (c.at('-') && (c.peek(1)?.type === 'word' || c.peek(1)?.type === 'number')) c.skip(2);
  } else if (c.at('^^')) {
    c.skip();
    const dt = c.peek();
    if (dt?.type !== 'iri' && dt?.type !== 'pname') c.fail('expected a datatype IRI');
    c.skip();
  }
};

/** One RDF term: a variable, an IRI, a blank node, a literal, a signed number, or `[]`. */
export const term = (c: Cursor): Term => {
  const t = c.peek();
  if (!t) return c.fail('expected a term');
  if (t.type === 'var') {
    c.skip();
    return { kind: 'var', name: t.text.slice(1) };
  }
  if (t.type === 'iri' || t.type === 'pname') {
    c.skip();
    if (t.type === 'pname' && t.text.startsWith('_:')) return { kind: 'var', name: t.text };
    return { kind: 'const', iri: c.iriOf(t), text: t.text };
  }
  if (t.type === 'word' && t.text === '_' && c.peek(1)?.type === 'pname' && c.peek(1).text.startsWith(':')) {
    c.skip(2);
    return { kind: 'var', name: `_${c.peek(-1).text}` };
  }
  if (t.type === 'string') {
    c.skip();
    literalSuffix(c);
    return { kind: 'const', text: t.text };
  }
  if ((t.text === '+' || t.text === '-') && c.peek(1)?.type === 'number') {
    c.skip(2);
    return { kind: 'const', text: t.text + c.peek(-1).text };
  }
  if (t.type === 'number' || isWord(t, 'TRUE', 'FALSE')) {
    c.skip();
    return { kind: 'const', text: t.text };
  }
  if (t.text === '[' && c.peek(1)?.text === ']') {
    c.skip(2);
    return c.fresh();
  }
  return c.fail('expected a term');
};
