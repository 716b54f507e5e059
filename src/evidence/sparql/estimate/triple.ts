import { isPath, type TriplePattern } from '../query-shape';
import { isBound, type Costing, type Estimate } from './costing';
import { anyPredicateRows, linkRows, pathRows } from './paths';

/** One triple pattern, joined to what `cur` has bound: a fixed predicate, a predicate variable, or a property path. */
export const tripleCost = (k: Costing, t: TriplePattern, cur: Set<string>): Estimate => {
  const { stats } = k;
  const s = isBound(t.s, cur);
  const o = isBound(t.o, cur);
  if (!isPath(t.p)) {
    if (t.p.kind === 'const') return { rows: linkRows(stats, t.p.iri ?? '', s, o), work: 0 };
    if (cur.has(t.p.name)) return { rows: s && o ? 1 : s || o ? Math.max(1, k.avgPredicate / Math.max(1, s ? stats.subjects : stats.objects)) : k.avgPredicate, work: 0 };
    if (!s && !o) k.hazards.push({ kind: 'unbound', text: t.text });
    return { rows: anyPredicateRows(stats, s, o), work: 0 };
  }
  const walk = { edges: 0 };
  const rows = pathRows(k, t.p, s, o, walk);
  if (walk.edges && !s && !o) k.hazards.push({ kind: 'closure', text: t.text, rows });
  // A closure walks its edges once per start node.
  return { rows, work: walk.edges };
};
