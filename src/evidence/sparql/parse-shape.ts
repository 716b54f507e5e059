import { expand } from './safety';
import { isWord, type Token } from './tokenize';
import type { Path, Pattern, QueryShape, Term, TriplePattern } from './query-shape';

/** The query is not in the subset this parser knows; the caller decides what that means (the engine has the last word). */
export class ShapeError extends Error {}

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const AGGREGATES = ['COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'SAMPLE', 'GROUP_CONCAT'];
const MODIFIER_WORDS = ['GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'VALUES'];

/**
 * A recursive-descent parser for the graph-pattern part of SPARQL 1.1 queries (SELECT and ASK), over the tokens of
 * tokenize.ts. It reads triples with `;` `,` `[]` and collections, property paths, groups, UNION, OPTIONAL, MINUS,
 * GRAPH, SERVICE, FILTER (with EXISTS), BIND, VALUES and subqueries. Depth is bounded by the caller's structural
 * limits before this runs, so recursion here cannot overflow.
 */
export const parseShape = (sig: Token[], declared: Map<string, string>): QueryShape => {
  let i = 0;
  let blank = 0;
  let tripleStart = 0;
  const peek = (k = 0) => sig[i + k];
  const fail = (what: string): never => {
    const t = peek();
    throw new ShapeError(`${what} at ${t ? `"${t.text}" (character ${t.start + 1})` : 'the end of the query'}`);
  };
  const take = (text: string) => {
    if (peek()?.text !== text && !isWord(peek(), text)) fail(`expected "${text}"`);
    return sig[i++];
  };
  const at = (text: string) => peek()?.text === text;
  const fresh = (): Term => ({ kind: 'var', name: `_:b${blank++}` });

  const iriOf = (t: Token | undefined): string | undefined => (t ? expand(t, declared) : undefined);

  const term = (): Term => {
    const t = peek();
    if (!t) return fail('expected a term');
    if (t.type === 'var') {
      i++;
      return { kind: 'var', name: t.text.slice(1) };
    }
    if (t.type === 'iri' || t.type === 'pname') {
      i++;
      if (t.type === 'pname' && t.text.startsWith('_:')) return { kind: 'var', name: t.text };
      return { kind: 'const', iri: iriOf(t), text: t.text };
    }
    if (t.type === 'word' && t.text === '_' && peek(1)?.type === 'pname' && peek(1).text.startsWith(':')) {
      i += 2;
      return { kind: 'var', name: `_${peek(-1).text}` };
    }
    if (t.type === 'string') {
      i++;
      if (at('@')) {
        i++;
        if (peek()?.type !== 'word') fail('expected a language tag');
        i++;
        while (at('-') && (peek(1)?.type === 'word' || peek(1)?.type === 'number')) i += 2;
      } else if (at('^^')) {
        i++;
        const dt = peek();
        if (dt?.type !== 'iri' && dt?.type !== 'pname') fail('expected a datatype IRI');
        i++;
      }
      return { kind: 'const', text: t.text };
    }
    if ((t.text === '+' || t.text === '-') && peek(1)?.type === 'number') {
      i += 2;
      return { kind: 'const', text: t.text + peek(-1).text };
    }
    if (t.type === 'number' || isWord(t, 'TRUE', 'FALSE')) {
      i++;
      return { kind: 'const', text: t.text };
    }
    if (t.text === '[' && peek(1)?.text === ']') {
      i += 2;
      return fresh();
    }
    return fail('expected a term');
  };

  // ---- property paths ----
  const pathPrimary = (): Path => {
    const t = peek();
    if (!t) return fail('expected a predicate');
    if (isWord(t, 'A') && t.text === 'a') {
      i++;
      return { kind: 'link', iri: `${RDF}type`, text: 'a' };
    }
    if (t.type === 'iri' || t.type === 'pname') {
      i++;
      return { kind: 'link', iri: iriOf(t) ?? t.text, text: t.text };
    }
    if (t.text === '(') {
      i++;
      const p = pathAlternative();
      take(')');
      return p;
    }
    if (t.text === '!') {
      const start = i;
      i++;
      const one = (): string => {
        if (at('^')) i++;
        const x = peek();
        if (x?.text === 'a') {
          i++;
          return `${RDF}type`;
        }
        if (x?.type !== 'iri' && x?.type !== 'pname') return fail('expected an IRI in a negated property set');
        i++;
        return iriOf(x) ?? x.text;
      };
      const iris: string[] = [];
      if (at('(')) {
        i++;
        if (!at(')')) {
          iris.push(one());
          while (at('|')) {
            i++;
            iris.push(one());
          }
        }
        take(')');
      } else iris.push(one());
      return { kind: 'negated', iris, text: sig.slice(start, i).map((x) => x.text).join('') };
    }
    return fail('expected a predicate or property path');
  };
  const pathElt = (): Path => {
    let inverse = false;
    if (at('^')) {
      i++;
      inverse = true;
    }
    let p = pathPrimary();
    const m = peek()?.text;
    if (m === '*' || m === '+' || m === '?') {
      i++;
      p = { kind: 'repeat', path: p, mod: m };
    }
    return inverse ? { kind: 'inverse', path: p } : p;
  };
  const pathSequence = (): Path => {
    const parts = [pathElt()];
    while (at('/')) {
      i++;
      parts.push(pathElt());
    }
    return parts.length === 1 ? parts[0] : { kind: 'sequence', parts };
  };
  function pathAlternative(): Path {
    const parts = [pathSequence()];
    while (at('|')) {
      i++;
      parts.push(pathSequence());
    }
    return parts.length === 1 ? parts[0] : { kind: 'alternative', parts };
  }
  const verb = (): Term | Path => {
    if (peek()?.type === 'var') return term();
    const p = pathAlternative();
    return p.kind === 'link' ? { kind: 'const', iri: p.iri, text: p.text } : p;
  };

  // ---- triples ----
  const textOf = (from: number) => {
    const s = sig.slice(from, i).map((t) => t.text).join(' ');
    return s.length > 80 ? `${s.slice(0, 77)}...` : s;
  };
  const node = (out: TriplePattern[]): Term => {
    if (at('[') && peek(1)?.text !== ']') {
      i++;
      const b = fresh();
      propertyList(b, out);
      take(']');
      return b;
    }
    if (at('(')) {
      // A collection: ( a b c ) is a chain of rdf:first / rdf:rest triples.
      i++;
      const head = fresh();
      let cur = head;
      let first = true;
      while (!at(')')) {
        if (!peek()) fail('a collection is never closed');
        if (!first) {
          const next = fresh();
          out.push({ kind: 'triple', s: cur, p: { kind: 'const', iri: `${RDF}rest`, text: 'rdf:rest' }, o: next, text: '( ... )' });
          cur = next;
        }
        first = false;
        out.push({ kind: 'triple', s: cur, p: { kind: 'const', iri: `${RDF}first`, text: 'rdf:first' }, o: node(out), text: '( ... )' });
      }
      i++;
      return head;
    }
    return term();
  };
  const objectList = (s: Term, p: Term | Path, out: TriplePattern[]) => {
    for (;;) {
      const o = node(out);
      out.push({ kind: 'triple', s, p, o, text: textOf(tripleStart) });
      if (!at(',')) return;
      i++;
    }
  };
  function propertyList(s: Term, out: TriplePattern[]) {
    for (;;) {
      const p = verb();
      objectList(s, p, out);
      while (at(';')) i++;
      if (at('.') || at('}') || at(']') || !peek() || isPatternKeyword(peek())) return;
      if (sig[i - 1]?.text !== ';') return;
    }
  }
  const triples = (out: Pattern[]) => {
    tripleStart = i;
    const found: TriplePattern[] = [];
    const startsWithList = at('[') && peek(1)?.text !== ']';
    const s = node(found);
    if (startsWithList && (at('.') || at('}'))) {
      // `[ :p :o ] .` alone is a complete triples block.
    } else {
      const before = i;
      propertyList(s, found);
      if (i === before) fail('expected a predicate');
    }
    out.push(...found);
  };

  // ---- expressions: skipped, except the patterns inside EXISTS ----
  const skipCall = (exists: Pattern[]) => {
    // At "(": skip to the matching ")", collecting EXISTS patterns.
    take('(');
    let depth = 1;
    while (depth > 0) {
      const t = peek();
      if (!t) fail('a "(" is never closed');
      if (isWord(t, 'EXISTS') && peek(1)?.text === '{') {
        i++;
        exists.push(group());
        continue;
      }
      if (t.text === '(') depth++;
      else if (t.text === ')') depth--;
      else if (t.text === '{' || t.text === '}') fail('unexpected brace inside an expression');
      i++;
    }
  };
  const constraint = (exists: Pattern[]) => {
    if (at('(')) return skipCall(exists);
    if (isWord(peek(), 'NOT') && isWord(peek(1), 'EXISTS')) i++;
    if (isWord(peek(), 'EXISTS')) {
      i++;
      exists.push(group());
      return;
    }
    const t = peek();
    if (t && (t.type === 'word' || t.type === 'iri' || t.type === 'pname') && peek(1)?.text === '(') {
      i++;
      return skipCall(exists);
    }
    fail('expected a constraint after FILTER');
  };

  // ---- groups ----
  const values = (): Pattern => {
    const vars: string[] = [];
    let rows = 0;
    if (peek()?.type === 'var') {
      vars.push(peek().text.slice(1));
      i++;
      take('{');
      while (!at('}')) {
        if (!peek()) fail('VALUES is never closed');
        if (isWord(peek(), 'UNDEF')) i++;
        else term();
        rows++;
      }
      i++;
      return { kind: 'values', vars, rows };
    }
    take('(');
    while (peek()?.type === 'var') vars.push(sig[i++].text.slice(1));
    take(')');
    take('{');
    while (at('(')) {
      i++;
      while (!at(')')) {
        if (!peek()) fail('a VALUES row is never closed');
        if (isWord(peek(), 'UNDEF')) i++;
        else term();
      }
      i++;
      rows++;
    }
    take('}');
    return { kind: 'values', vars, rows };
  };

  function group(): Pattern {
    take('{');
    if (isWord(peek(), 'SELECT')) {
      const query = selectQuery();
      take('}');
      return { kind: 'group', items: [{ kind: 'subquery', query }] };
    }
    const items: Pattern[] = [];
    while (!at('}')) {
      const t = peek();
      if (!t) fail('a "{" is never closed');
      if (t.text === '.') i++;
      else if (t.text === '{') {
        const branches = [group()];
        while (isWord(peek(), 'UNION')) {
          i++;
          branches.push(group());
        }
        items.push(branches.length === 1 ? branches[0] : { kind: 'union', branches });
      } else if (isWord(t, 'OPTIONAL')) {
        i++;
        items.push({ kind: 'optional', group: group() });
      } else if (isWord(t, 'MINUS')) {
        i++;
        items.push({ kind: 'minus', group: group() });
      } else if (isWord(t, 'GRAPH')) {
        i++;
        term();
        items.push(group());
      } else if (isWord(t, 'SERVICE')) {
        i++;
        if (isWord(peek(), 'SILENT')) i++;
        term();
        items.push(group());
      } else if (isWord(t, 'FILTER')) {
        i++;
        const exists: Pattern[] = [];
        constraint(exists);
        items.push({ kind: 'filter', exists });
      } else if (isWord(t, 'BIND')) {
        i++;
        const exists: Pattern[] = [];
        // BIND ( expression AS ?v ): the variable is the token before the closing parenthesis.
        const open = i;
        skipCall(exists);
        const v = sig[i - 2];
        if (v?.type !== 'var' || !isWord(sig[i - 3], 'AS') || i - 3 <= open) fail('expected BIND(expression AS ?variable)');
        items.push({ kind: 'bind', variable: v.text.slice(1), exists });
      } else if (isWord(t, 'VALUES')) {
        i++;
        items.push(values());
      } else triples(items);
    }
    i++;
    return { kind: 'group', items };
  }

  // ---- queries ----
  const modifiers = (shape: QueryShape, exists: Pattern[]) => {
    for (;;) {
      const t = peek();
      if (isWord(t, 'GROUP') || isWord(t, 'ORDER')) {
        i++;
        take('BY');
        shape.materialises = true;
        while (peek() && !isWord(peek(), ...MODIFIER_WORDS) && !at('}')) {
          const c = peek();
          if (c.type === 'var') i++;
          else if (isWord(c, 'ASC', 'DESC') || c.type === 'word' || c.type === 'iri' || c.type === 'pname') {
            i++;
            skipCall(exists);
          } else if (c.text === '(') skipCall(exists);
          else fail('expected a sort or group condition');
        }
      } else if (isWord(t, 'HAVING')) {
        i++;
        shape.materialises = true;
        while (peek() && !isWord(peek(), ...MODIFIER_WORDS) && !at('}')) constraint(exists);
      } else if (isWord(t, 'LIMIT') || isWord(t, 'OFFSET')) {
        i++;
        const n = peek();
        if (n?.type !== 'number') fail(`${t.text.toUpperCase()} must be followed by a number`);
        i++;
        if (isWord(t, 'LIMIT')) shape.limit = Number(n.text);
      } else return;
    }
  };

  function selectQuery(): QueryShape {
    take('SELECT');
    const shape: QueryShape = { form: 'SELECT', where: { kind: 'group', items: [] }, projected: [], materialises: false };
    const exists: Pattern[] = [];
    if (isWord(peek(), 'DISTINCT', 'REDUCED')) i++;
    const projected: string[] = [];
    if (at('*')) {
      i++;
      shape.projected = '*';
    } else {
      while (peek() && !at('{') && !isWord(peek(), 'WHERE', 'FROM')) {
        const t = peek();
        if (t.type === 'var') {
          projected.push(t.text.slice(1));
          i++;
        } else if (t.text === '(') {
          const from = i;
          skipCall(exists);
          if (sig.slice(from, i).some((x) => isWord(x, ...AGGREGATES))) shape.materialises = true;
          const v = sig[i - 2];
          if (v?.type === 'var' && isWord(sig[i - 3], 'AS')) projected.push(v.text.slice(1));
        } else fail('expected a variable or (expression AS ?variable) after SELECT');
      }
      if (!projected.length) fail('SELECT names no variable');
      shape.projected = projected;
    }
    datasetAndWhere(shape);
    modifiers(shape, exists);
    if (exists.length) shape.where = { kind: 'group', items: [shape.where, { kind: 'filter', exists }] };
    return shape;
  }

  function datasetAndWhere(shape: QueryShape) {
    while (isWord(peek(), 'FROM')) {
      i++;
      if (isWord(peek(), 'NAMED')) i++;
      term();
    }
    if (isWord(peek(), 'WHERE')) i++;
    shape.where = group();
  }

  // Prologue, form, body, modifiers, trailing VALUES.
  while (isWord(peek(), 'PREFIX', 'BASE')) i += isWord(peek(), 'PREFIX') ? 3 : 2;
  let shape: QueryShape;
  if (isWord(peek(), 'ASK')) {
    i++;
    shape = { form: 'ASK', where: { kind: 'group', items: [] }, projected: [], materialises: false };
    datasetAndWhere(shape);
    const exists: Pattern[] = [];
    modifiers(shape, exists);
  } else shape = selectQuery();
  if (isWord(peek(), 'VALUES')) {
    i++;
    shape.values = values();
  }
  if (peek()) fail('unexpected text after the query');
  return shape;
};

const isPatternKeyword = (t: Token | undefined) => isWord(t, 'OPTIONAL', 'MINUS', 'FILTER', 'BIND', 'VALUES', 'GRAPH', 'SERVICE');
