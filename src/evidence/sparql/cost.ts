import { EvidenceError } from '../types';
import { isPath, patternVars, type Path, type Pattern, type QueryShape, type Term, type TriplePattern } from './query-shape';

/** What the store holds, counted once per engine instance; the estimates scale with it (a live-sized graph too). */
export interface GraphStats {
  triples: number;
  subjects: number;
  objects: number;
  predicates: Map<string, { count: number; subjects: number; objects: number }>;
}

/**
 * Estimated intermediate rows one query may build. The engine's own work meter (about 120 units per row) stops
 * anything that slips through at roughly the same size; refusing before running gives the agent advice instead.
 * The few-shot libraries estimate at most 35,000, the QALD-9-Plus gold queries about 3,000 (tests/evidence/qald-gold.test.ts).
 */
export const MAX_ESTIMATED_ROWS = 150_000;

type Hazard =
  | { kind: 'cartesian'; left: number; right: number; text: string }
  | { kind: 'unbound'; text: string }
  | { kind: 'closure'; text: string; rows: number };

interface Estimate {
  /** Rows per incoming binding. */
  rows: number;
  /** Rows built on the way, per incoming binding. */
  work: number;
}

const CAP = 1e18;
const mul = (a: number, b: number) => Math.min(CAP, a * b);
const add = (a: number, b: number) => Math.min(CAP, a + b);

/**
 * Estimates the rows a query builds, joining each group's parts in the cheapest order (most selective first, then
 * always a part that shares a variable with what is already joined, like the engine's own planner). A part that
 * shares nothing is a cartesian product: its rows multiply everything joined so far.
 */
export const estimateCost = (shape: QueryShape, stats: GraphStats): { rows: number; work: number; hazards: Hazard[] } => {
  const hazards: Hazard[] = [];
  const nodes = stats.subjects + stats.objects;
  const avgPredicate = stats.predicates.size ? stats.triples / stats.predicates.size : stats.triples;

  const bound = (t: Term, cur: Set<string>) => t.kind === 'const' || cur.has(t.name);

  const link = (iri: string, s: boolean, o: boolean): number => {
    const p = stats.predicates.get(iri);
    if (!p || !p.count) return 0;
    if (s && o) return 1;
    if (s) return p.count / Math.max(1, p.subjects);
    if (o) return p.count / Math.max(1, p.objects);
    return p.count;
  };
  const anyPredicate = (s: boolean, o: boolean): number =>
    s && o ? stats.triples / Math.max(1, stats.subjects * stats.objects) : s ? stats.triples / Math.max(1, stats.subjects) : o ? stats.triples / Math.max(1, stats.objects) : stats.triples;

  /** Distinct nodes a path can start from and end at, from the store's counts per predicate. */
  const ends = (p: Path): { subjects: number; objects: number } => {
    switch (p.kind) {
      case 'link': {
        const c = stats.predicates.get(p.iri);
        return { subjects: c?.subjects ?? 0, objects: c?.objects ?? 0 };
      }
      case 'inverse': {
        const e = ends(p.path);
        return { subjects: e.objects, objects: e.subjects };
      }
      case 'alternative':
        return p.parts.map(ends).reduce((a, b) => ({ subjects: a.subjects + b.subjects, objects: a.objects + b.objects }), { subjects: 0, objects: 0 });
      case 'sequence':
        return { subjects: ends(p.parts[0]).subjects, objects: ends(p.parts[p.parts.length - 1]).objects };
      case 'repeat': {
        // Zero steps end where they start: any node.
        const e = ends(p.path);
        return p.mod === '+' ? e : { subjects: nodes, objects: nodes };
      }
      case 'negated':
        return { subjects: stats.subjects, objects: stats.objects };
    }
  };

  /** Pairs a path yields per binding of its bound ends; `closure` collects the edges walked by * and +. */
  const path = (p: Path, s: boolean, o: boolean, walk: { edges: number }): number => {
    switch (p.kind) {
      case 'link':
        return link(p.iri, s, o);
      case 'inverse':
        return path(p.path, o, s, walk);
      case 'alternative':
        return p.parts.reduce((sum, part) => add(sum, path(part, s, o, walk)), 0);
      case 'negated':
        return anyPredicate(s, o);
      case 'sequence': {
        // Walked from the bound end: after the first step, each part starts from the node the step before reached.
        if (!s && o) return [...p.parts].reverse().reduce((r, part) => mul(r, path(part, false, true, walk)), 1);
        const forward = p.parts.reduce((r, part, k) => mul(r, path(part, s || k > 0, false, walk)), 1);
        // Both ends bound: the path only checks that they are connected.
        return s && o ? Math.min(1, forward) : forward;
      }
      case 'repeat': {
        const edges = path(p.path, false, false, { edges: 0 });
        const zero = p.mod === '+' ? 0 : 1;
        if (p.mod === '?') return add(path(p.path, s, o, walk), s || o ? 1 : nodes);
        const touched = Math.min(nodes, 2 * edges);
        if (s || o) {
          // From a bound node a closure reaches at most the distinct nodes its steps lead to (objects going forward,
          // subjects going backward), whatever the depth, and walks the edges that leave those: wdt:P31* from an item
          // ends among the few classes. (Statistics of the store, not of the query: an upper bound, not a guess.)
          const e = ends(p.path);
          const reach = Math.min(touched, edges, s ? e.objects : e.subjects);
          const fanOut = edges / Math.max(1, s ? e.subjects : e.objects);
          walk.edges = add(walk.edges, Math.min(edges, mul(add(reach, zero), Math.max(1, fanOut))));
          return add(reach, zero);
        }
        walk.edges = add(walk.edges, edges);
        // Neither end bound: every start node, then everything reachable from it (and every node to itself for *).
        return add(mul(touched, Math.min(touched, edges)), zero ? nodes : 0);
      }
    }
  };

  const triple = (t: TriplePattern, cur: Set<string>): Estimate => {
    const s = bound(t.s, cur);
    const o = bound(t.o, cur);
    if (!isPath(t.p)) {
      if (t.p.kind === 'const') return { rows: link(t.p.iri ?? '', s, o), work: 0 };
      if (cur.has(t.p.name)) return { rows: s && o ? 1 : s || o ? Math.max(1, avgPredicate / Math.max(1, s ? stats.subjects : stats.objects)) : avgPredicate, work: 0 };
      if (!s && !o) hazards.push({ kind: 'unbound', text: t.text });
      return { rows: anyPredicate(s, o), work: 0 };
    }
    const walk = { edges: 0 };
    const rows = path(t.p, s, o, walk);
    if (walk.edges && !s && !o) hazards.push({ kind: 'closure', text: t.text, rows });
    // A closure walks its edges once per start node.
    return { rows, work: walk.edges };
  };

  const describe = (p: Pattern): string => {
    if (p.kind === 'triple') return p.text;
    if (p.kind === 'group') return p.items.map(describe).filter(Boolean).slice(0, 2).join(' . ');
    if (p.kind === 'union') return `{ ${describe(p.branches[0])} } UNION ...`;
    if (p.kind === 'values') return `VALUES (${p.vars.map((v) => `?${v}`).join(' ')})`;
    if (p.kind === 'subquery') return '{ SELECT ... }';
    return '';
  };

  const unit = (p: Pattern, cur: Set<string>): Estimate => {
    switch (p.kind) {
      case 'triple':
        return triple(p, cur);
      case 'group':
        return group(p.items, cur);
      case 'union':
        return p.branches.map((b) => unit(b, cur)).reduce((a, b) => ({ rows: add(a.rows, b.rows), work: add(a.work, b.work) }), { rows: 0, work: 0 });
      case 'values':
        return { rows: p.vars.some((v) => cur.has(v)) ? 1 : p.rows, work: p.rows };
      case 'subquery': {
        const inner = query(p.query);
        const vars = patternVars(p);
        return { rows: [...vars].some((v) => cur.has(v)) ? 1 : inner.rows, work: inner.work };
      }
      default:
        return { rows: 1, work: 0 };
    }
  };

  function group(items: Pattern[], outer: Set<string>): Estimate {
    const cur = new Set(outer);
    for (const b of items) if (b.kind === 'bind') cur.add(b.variable);
    let rows = 1;
    let work = 0;
    const join = (chosen: Pattern, e: Estimate, connected: boolean) => {
      if (!connected && rows > 1 && e.rows > 1) hazards.push({ kind: 'cartesian', left: rows, right: e.rows, text: describe(chosen) });
      work = add(work, mul(rows, e.work));
      rows = mul(rows, Math.max(1, e.rows));
      work = add(work, rows);
      patternVars(chosen, cur);
    };
    const isConnected = (p: Pattern) => {
      const vars = patternVars(p);
      return !vars.size || [...vars].some((v) => cur.has(v));
    };
    // VALUES first (they seed bindings), then triples in the cheapest connected order, then nested parts as written.
    // Each nested part is estimated once, so the estimate stays linear in the size of the query.
    for (const p of items) if (p.kind === 'values') join(p, unit(p, cur), isConnected(p));
    const pending = items.filter((p): p is TriplePattern => p.kind === 'triple');
    while (pending.length) {
      let best = 0;
      let bestRows = Infinity;
      let bestConnected = false;
      const mark = hazards.length;
      for (const [k, p] of pending.entries()) {
        const connected = isConnected(p);
        const r = triple(p, cur).rows;
        if ((connected && !bestConnected) || (connected === bestConnected && r < bestRows)) {
          best = k;
          bestRows = r;
          bestConnected = connected;
        }
      }
      hazards.length = mark;
      const [chosen] = pending.splice(best, 1);
      join(chosen, triple(chosen, cur), bestConnected);
    }
    for (const p of items) if (p.kind === 'group' || p.kind === 'union' || p.kind === 'subquery') join(p, unit(p, cur), isConnected(p));
    for (const p of items) {
      if (p.kind === 'optional') {
        const e = unit(p.group, cur);
        work = add(work, mul(rows, e.work));
        rows = mul(rows, Math.max(1, e.rows));
        work = add(work, rows);
        patternVars(p.group, cur);
      } else if (p.kind === 'minus') {
        const e = unit(p.group, new Set());
        work = add(work, add(e.work, e.rows));
      }
    }
    for (const p of items) {
      const exists = p.kind === 'filter' || p.kind === 'bind' ? p.exists : [];
      for (const x of exists) {
        const e = unit(x, cur);
        work = add(work, mul(rows, add(e.work, e.rows)));
      }
    }
    return { rows, work };
  }

  function query(q: QueryShape): Estimate {
    const where = unit(q.where, new Set());
    let { rows, work } = where;
    if (q.values) {
      const e = unit(q.values, patternVars(q.where));
      rows = mul(rows, e.rows);
      work = add(work, add(e.work, rows));
    }
    if (q.limit !== undefined && !q.materialises) rows = Math.min(rows, q.limit);
    return { rows, work };
  }

  const total = query(shape);
  return { ...total, hazards };
};

const round = (n: number) => (n >= 1e15 ? 'more than 10^15' : n >= 1e4 ? `about ${Number(n.toPrecision(2)).toLocaleString('en-US')}` : `about ${Math.round(n)}`);

/** Advice that names what to change: unconnected parts, patterns without a fixed term, unbound closures. */
export const costAdvice = (shape: QueryShape, stats: GraphStats, hazards = estimateCost(shape, stats).hazards): string[] => {
  const advice: string[] = [];
  const cartesian = hazards.filter((h) => h.kind === 'cartesian');
  const unbound = hazards.filter((h) => h.kind === 'unbound');
  const closure = hazards.filter((h) => h.kind === 'closure');
  if (cartesian.length) {
    const c = cartesian.reduce((a, b) => (a.left * a.right >= b.left * b.right ? a : b));
    advice.push(
      `Its parts share no variable, so every row of one is paired with every row of the other (${round(c.left)} × ${round(c.right)} rows at "${c.text}"): ` +
        'connect the parts through a shared variable, or ask them as separate queries.',
    );
  }
  if (unbound.length) {
    advice.push(
      `${unbound.length === 1 ? 'The pattern' : `${unbound.length} patterns, e.g.`} "${unbound[0].text}" ${unbound.length === 1 ? 'fixes' : 'fix'} none of subject, predicate and object, ` +
        `so ${unbound.length === 1 ? 'it matches' : 'each matches'} every triple (${stats.triples.toLocaleString('en-US')}): bind a subject or object to an entity id (wd:Q64) or use a fixed property (wdt:P31).`,
    );
  }
  if (closure.length) {
    advice.push(
      `The property path in "${closure[0].text}" has neither end bound, so it is followed from every node (${round(closure[0].rows)} pairs): ` +
        'start it from an entity id or from a variable that another pattern binds first.',
    );
  }
  return advice;
};

/** Refuses a query whose estimated work is over budget, with advice that names the pattern to change. */
export const checkCost = (shape: QueryShape, stats: GraphStats, maxRows = MAX_ESTIMATED_ROWS): void => {
  const { work, hazards } = estimateCost(shape, stats);
  if (work <= maxRows) return;
  const advice = costAdvice(shape, stats, hazards);
  if (shape.materialises) advice.push('ORDER BY, GROUP BY and aggregates such as COUNT need every row before the first answer, so LIMIT does not make them cheaper.');
  if (!advice.length) advice.push('Make it more selective: bind subjects or objects to entity ids, use fixed properties, and join fewer patterns.');
  throw new EvidenceError(
    `Refused before running: this query would build ${round(work)} intermediate rows, more than the ${maxRows.toLocaleString('en-US')} one query may use. ${advice.join(' ')}`,
    'refused',
  );
};
