import { EvidenceError } from '../types';
import { add, mul, type Costing, type Estimate, type GraphStats, type Hazard } from './estimate/costing';
import { groupCost } from './estimate/group';
import { tripleCost } from './estimate/triple';
import { patternVars, type Pattern, type QueryShape } from './query-shape';

export type { GraphStats } from './estimate/costing';

/**
 * Estimated intermediate rows one query may build. The engine's own work meter (about 120 units per row) stops
 * anything that slips through at roughly the same size; refusing before running gives the agent advice instead.
 * The few-shot libraries estimate at most 35,000, the QALD-9-Plus gold queries about 3,000 (tests/evidence/qald-gold.test.ts).
 */
export const MAX_ESTIMATED_ROWS = 150_000;

type Rule<K extends Pattern['kind']> = (k: Costing, p: Extract<Pattern, { kind: K }>, cur: Set<string>) => Estimate;

/** Parts that are costed by the group around them (after its joins), not joined as parts of their own. */
const notJoined = (): Estimate => ({ rows: 1, work: 0 });

/** One cost rule per pattern kind: rows per incoming binding of `cur`, and the rows built on the way. */
const RULES: { [K in Pattern['kind']]: Rule<K> } = {
  triple: tripleCost,
  group: (k, p, cur) => groupCost(k, p.items, cur),
  union: (k, p, cur) => p.branches.map((b) => k.unit(b, cur)).reduce((a, b) => ({ rows: add(a.rows, b.rows), work: add(a.work, b.work) }), { rows: 0, work: 0 }),
  values: (_k, p, cur) => ({ rows: p.vars.some((v) => cur.has(v)) ? 1 : p.rows, work: p.rows }),
  subquery: (k, p, cur) => {
    const inner = queryCost(k, p.query);
    return { rows: [...patternVars(p)].some((v) => cur.has(v)) ? 1 : inner.rows, work: inner.work };
  },
  optional: notJoined,
  minus: notJoined,
  filter: notJoined,
  bind: notJoined,
};

const unit = (k: Costing, p: Pattern, cur: Set<string>): Estimate => (RULES[p.kind] as Rule<Pattern['kind']>)(k, p, cur);

/** A query's WHERE, its trailing VALUES joined with the result, and LIMIT when nothing needs every row first. */
function queryCost(k: Costing, q: QueryShape): Estimate {
  let { rows, work } = unit(k, q.where, new Set());
  if (q.values) {
    const e = unit(k, q.values, patternVars(q.where));
    rows = mul(rows, e.rows);
    work = add(work, add(e.work, rows));
  }
  if (q.limit !== undefined && !q.materialises) rows = Math.min(rows, q.limit);
  return { rows, work };
}

/**
 * Estimates the rows a query builds, joining each group's parts in the cheapest order (estimate/group.ts). A part that
 * shares nothing is a cartesian product: its rows multiply everything joined so far.
 */
export const estimateCost = (shape: QueryShape, stats: GraphStats): { rows: number; work: number; hazards: Hazard[] } => {
  const k: Costing = {
    stats,
    nodes: stats.subjects + stats.objects,
    avgPredicate: stats.predicates.size ? stats.triples / stats.predicates.size : stats.triples,
    hazards: [],
    unit: (p, cur) => unit(k, p, cur),
  };
  return { ...queryCost(k, shape), hazards: k.hazards };
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
