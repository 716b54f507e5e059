import { isWord, type Token } from '../tokenize';
import type { Path, Pattern, Term, TriplePattern } from '../query-shape';
import { RDF, type Cursor } from './cursor';
import { verb } from './paths';
import { term } from './terms';

const isPatternKeyword = (t: Token | undefined) => isWord(t, 'OPTIONAL', 'MINUS', 'FILTER', 'BIND', 'VALUES', 'GRAPH', 'SERVICE');

/** A collection: ( a b c ) is a chain of rdf:first / rdf:rest triples. */
const collection = (c: Cursor, out: TriplePattern[]): Term => {
  c.skip();
  const head = c.fresh();
  let cur = head;
  let first = true;
  while (!c.at(')')) {
    if (!c.peek()) c.fail('a collection is never closed');
    if (!first) {
      const next = c.fresh();
      out.push({ kind: 'triple', s: cur, p: { kind: 'const', iri: `${RDF}rest`, text: 'rdf:rest' }, o: next, text: '( ... )' });
      cur = next;
    }
    first = false;
    out.push({ kind: 'triple', s: cur, p: { kind: 'const', iri: `${RDF}first`, text: 'rdf:first' }, o: node(c, out), text: '( ... )' });
  }
  c.skip();
  return head;
};

/** A subject or object: a term, a `[ ... ]` blank node with properties, or a collection. */
function node(c: Cursor, out: TriplePattern[]): Term {
  if (c.at('[') && c.peek(1)?.text !== ']') {
    c.skip();
    const b = c.fresh();
    propertyList(c, b, out);
    c.take(']');
    return b;
  }
  if (c.at('(')) return collection(c, out);
  return term(c);
}

const objectList = (c: Cursor, s: Term, p: Term | Path, out: TriplePattern[]) => {
  for (;;) {
    const o = node(c, out);
    out.push({ kind: 'triple', s, p, o, text: c.textFrom(c.tripleStart) });
    if (!c.at(',')) return;
    c.skip();
  }
};

function propertyList(c: Cursor, s: Term, out: TriplePattern[]) {
  for (;;) {
    const p = verb(c);
    objectList(c, s, p, out);
    while (c.at(';')) c.skip();
    if (c.at('.') || c.at('}') || c.at(']') || !c.peek() || isPatternKeyword(c.peek())) return;
    if (c.peek(-1)?.text !== ';') return;
  }
}

/** One triples block (`s p o ; p o , o`), its patterns appended to `out`. */
export const triples = (c: Cursor, out: Pattern[]) => {
  c.tripleStart = c.pos;
  const found: TriplePattern[] = [];
  const startsWithList = c.at('[') && c.peek(1)?.text !== ']';
  const s = node(c, found);
  if (startsWithList && (c.at('.') || c.at('}'))) {
    // `[ :p :o ] .` alone is a complete triples block.
  } else {
    const before = c.pos;
    propertyList(c, s, found);
    if (c.pos === before) c.fail('expected a predicate');
  }
  out.push(...found);
};
