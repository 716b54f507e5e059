import { isWord } from '../tokenize';
import type { Path, Term } from '../query-shape';
import { RDF, type Cursor } from './cursor';
import { term } from './terms';

/** One IRI of a negated property set (`!(a|^wdt:P31)`); its direction does not change the cost. */
const negatedMember = (c: Cursor): string => {
  if (c.at('^')) c.skip();
  const x = c.peek();
  if (x?.text === 'a') {
    c.skip();
    return `${RDF}type`;
  }
  if (x?.type !== 'iri' && x?.type !== 'pname') return c.fail('expected an IRI in a negated property set');
  c.skip();
  return c.iriOf(x) ?? x.text;
};

/** At "!": one IRI, or a parenthesised list of them separated by "|". */
const negatedSet = (c: Cursor): Path => {
  const start = c.pos;
  c.skip();
  let iris: string[] = [];
  if (c.at('(')) {
    c.skip();
    if (!c.at(')')) iris = c.separated(() => negatedMember(c), () => c.at('|'));
    c.take(')');
  } else iris = [negatedMember(c)];
  return { kind: 'negated', iris, text: c.sig.slice(start, c.pos).map((x) => x.text).join('') };
};

const pathPrimary = (c: Cursor): Path => {
  const t = c.peek();
  if (!t) return c.fail('expected a predicate');
  if (isWord(t, 'A') && t.text === 'a') {
    c.skip();
    return { kind: 'link', iri: `${RDF}type`, text: 'a' };
  }
  if (t.type === 'iri' || t.type === 'pname') {
    c.skip();
    return { kind: 'link', iri: c.iriOf(t) ?? t.text, text: t.text };
  }
  if (t.text === '(') {
    c.skip();
    const p = pathAlternative(c);
    c.take(')');
    return p;
  }
  if (t.text === '!') return negatedSet(c);
  return c.fail('expected a predicate or property path');
};

/** A primary with its optional `^` before and `*`, `+` or `?` after. */
const pathElt = (c: Cursor): Path => {
  let inverse = false;
  if (c.at('^')) {
    c.skip();
    inverse = true;
  }
  let p = pathPrimary(c);
  const m = c.peek()?.text;
  if (m === '*' || m === '+' || m === '?') {
    c.skip();
    p = { kind: 'repeat', path: p, mod: m };
  }
  return inverse ? { kind: 'inverse', path: p } : p;
};

const pathSequence = (c: Cursor): Path => {
  const parts = c.separated(() => pathElt(c), () => c.at('/'));
  return parts.length === 1 ? parts[0] : { kind: 'sequence', parts };
};

function pathAlternative(c: Cursor): Path {
  const parts = c.separated(() => pathSequence(c), () => c.at('|'));
  return parts.length === 1 ? parts[0] : { kind: 'alternative', parts };
}

/** A triple's predicate: a variable, or a property path (a plain IRI is kept as a constant term). */
export const verb = (c: Cursor): Term | Path => {
  if (c.peek()?.type === 'var') return term(c);
  const p = pathAlternative(c);
  return p.kind === 'link' ? { kind: 'const', iri: p.iri, text: p.text } : p;
};
