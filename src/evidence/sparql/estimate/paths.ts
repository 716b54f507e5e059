import type { Path } from '../query-shape';
import { add, mul, type Costing, type GraphStats } from './costing';

/** Triples of one predicate per binding of the bound ends. */
export const linkRows = (stats: GraphStats, iri: string, s: boolean, o: boolean): number => {
  const p = stats.predicates.get(iri);
  if (!p || !p.count) return 0;
  if (s && o) return 1;
  if (s) return p.count / Math.max(1, p.subjects);
  if (o) return p.count / Math.max(1, p.objects);
  return p.count;
};

/** Triples of any predicate per binding of the bound ends. */
export const anyPredicateRows = (stats: GraphStats, s: boolean, o: boolean): number =>
  s && o ? stats.triples / Math.max(1, stats.subjects * stats.objects) : s ? stats.triples / Math.max(1, stats.subjects) : o ? stats.triples / Math.max(1, stats.objects) : stats.triples;

/** Distinct nodes a path can start from and end at, from the store's counts per predicate. */
const ends = (k: Costing, p: Path): { subjects: number; objects: number } => {
  switch (p.kind) {
    case 'link': {
      const c = k.stats.predicates.get(p.iri);
      return { subjects: c?.subjects ?? 0, objects: c?.objects ?? 0 };
    }
    case 'inverse': {
      const e = ends(k, p.path);
      return { subjects: e.objects, objects: e.subjects };
    }
    case 'alternative':
      return p.parts.map((part) => ends(k, part)).reduce((a, b) => ({ subjects: a.subjects + b.subjects, objects: a.objects + b.objects }), { subjects: 0, objects: 0 });
    case 'sequence':
      return { subjects: ends(k, p.parts[0]).subjects, objects: ends(k, p.parts[p.parts.length - 1]).objects };
    case 'repeat': {
      // Zero steps end where they start: any node.
      const e = ends(k, p.path);
      return p.mod === '+' ? e : { subjects: k.nodes, objects: k.nodes };
    }
    case 'negated':
      return { subjects: k.stats.subjects, objects: k.stats.objects };
  }
};

/** Edges a closure walks, collected while a path is estimated. */
export interface Walk {
  edges: number;
}

/** Walked from the bound end: after the first step, each part starts from the node the step before reached. */
const sequenceRows = (k: Costing, parts: Path[], s: boolean, o: boolean, walk: Walk): number => {
  if (!s && o) return [...parts].reverse().reduce((r, part) => mul(r, pathRows(k, part, false, true, walk)), 1);
  const forward = parts.reduce((r, part, n) => mul(r, pathRows(k, part, s || n > 0, false, walk)), 1);
  // Both ends bound: the path only checks that they are connected.
  return s && o ? Math.min(1, forward) : forward;
};

/** `?`, `*` and `+`: zero or one step, or a closure over the path's edges. */
const repeatRows = (k: Costing, p: Extract<Path, { kind: 'repeat' }>, s: boolean, o: boolean, walk: Walk): number => {
  const edges = pathRows(k, p.path, false, false, { edges: 0 });
  const zero = p.mod === '+' ? 0 : 1;
  if (p.mod === '?') return add(pathRows(k, p.path, s, o, walk), s || o ? 1 : k.nodes);
  const touched = Math.min(k.nodes, 2 * edges);
  if (s || o) {
    // From a bound node a closure reaches at most the distinct nodes its steps lead to (objects going forward,
    // subjects going backward), whatever the depth, and walks the edges that leave those: wdt:P31* from an item
    // ends among the few classes. (Statistics of the store, not of the query: an upper bound, not a guess.)
    const e = ends(k, p.path);
    const reach = Math.min(touched, edges, s ? e.objects : e.subjects);
    const fanOut = edges / Math.max(1, s ? e.subjects : e.objects);
    walk.edges = add(walk.edges, Math.min(edges, mul(add(reach, zero), Math.max(1, fanOut))));
    return add(reach, zero);
  }
  walk.edges = add(walk.edges, edges);
  // Neither end bound: every start node, then everything reachable from it (and every node to itself for *).
  return add(mul(touched, Math.min(touched, edges)), zero ? k.nodes : 0);
};

/** Pairs a path yields per binding of its bound ends; `walk` collects the edges walked by * and +. */
export function pathRows(k: Costing, p: Path, s: boolean, o: boolean, walk: Walk): number {
  switch (p.kind) {
    case 'link':
      return linkRows(k.stats, p.iri, s, o);
    case 'inverse':
      return pathRows(k, p.path, o, s, walk);
    case 'alternative':
      return p.parts.reduce((sum, part) => add(sum, pathRows(k, part, s, o, walk)), 0);
    case 'negated':
      return anyPredicateRows(k.stats, s, o);
    case 'sequence':
      return sequenceRows(k, p.parts, s, o, walk);
    case 'repeat':
      return repeatRows(k, p, s, o, walk);
  }
}
