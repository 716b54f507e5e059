import { patternVars, type Pattern, type TriplePattern } from '../query-shape';
import { add, mul, type Costing, type Estimate } from './costing';
import { tripleCost } from './triple';

/** A part of a group as a message names it. */
const describe = (p: Pattern): string => {
  if (p.kind === 'triple') return p.text;
  if (p.kind === 'group') return p.items.map(describe).filter(Boolean).slice(0, 2).join(' . ');
  if (p.kind === 'union') return `{ ${describe(p.branches[0])} } UNION ...`;
  if (p.kind === 'values') return `VALUES (${p.vars.map((v) => `?${v}`).join(' ')})`;
  if (p.kind === 'subquery') return '{ SELECT ... }';
  return '';
};

/** The rows and work of a group as its parts are joined one by one; `cur` is every variable bound so far. */
class Join {
  rows = 1;
  work = 0;
  readonly cur: Set<string>;

  constructor(
    private readonly k: Costing,
    outer: Set<string>,
  ) {
    this.cur = new Set(outer);
  }

  /** A part that shares no bound variable is a cartesian product with everything joined so far. */
  isConnected(p: Pattern): boolean {
    const vars = patternVars(p);
    return !vars.size || [...vars].some((v) => this.cur.has(v));
  }

  add(chosen: Pattern, e: Estimate, connected: boolean) {
    if (!connected && this.rows > 1 && e.rows > 1) this.k.hazards.push({ kind: 'cartesian', left: this.rows, right: e.rows, text: describe(chosen) });
    this.extend(e);
    patternVars(chosen, this.cur);
  }

  /** Each row so far runs the part once and is multiplied by its rows (at least kept, as OPTIONAL keeps it). */
  extend(e: Estimate) {
    this.work = add(this.work, mul(this.rows, e.work));
    this.rows = mul(this.rows, Math.max(1, e.rows));
    this.work = add(this.work, this.rows);
  }

  /** The triple to join next: connected first, then fewest rows (probing adds no hazards). */
  cheapest(pending: TriplePattern[]): { index: number; connected: boolean } {
    let best = { index: 0, rows: Infinity, connected: false };
    const mark = this.k.hazards.length;
    for (const [index, p] of pending.entries()) {
      const connected = this.isConnected(p);
      const rows = tripleCost(this.k, p, this.cur).rows;
      if ((connected && !best.connected) || (connected === best.connected && rows < best.rows)) best = { index, rows, connected };
    }
    this.k.hazards.length = mark;
    return best;
  }
}

/**
 * A group, joined in the cheapest order (most selective first, then always a part that shares a variable with what
 * is already joined, like the engine's own planner): VALUES first (they seed bindings), then triples, then nested
 * parts as written, then OPTIONAL and MINUS, then the EXISTS patterns of FILTER and BIND, once per row. Each nested
 * part is estimated once, so the estimate stays linear in the size of the query.
 */
export const groupCost = (k: Costing, items: Pattern[], outer: Set<string>): Estimate => {
  const join = new Join(k, outer);
  for (const b of items) if (b.kind === 'bind') join.cur.add(b.variable);
  for (const p of items) if (p.kind === 'values') join.add(p, k.unit(p, join.cur), join.isConnected(p));
  const pending = items.filter((p): p is TriplePattern => p.kind === 'triple');
  while (pending.length) {
    const { index, connected } = join.cheapest(pending);
    const [chosen] = pending.splice(index, 1);
    join.add(chosen, tripleCost(k, chosen, join.cur), connected);
  }
  for (const p of items) if (p.kind === 'group' || p.kind === 'union' || p.kind === 'subquery') join.add(p, k.unit(p, join.cur), join.isConnected(p));
  for (const p of items) {
    if (p.kind === 'optional') {
      join.extend(k.unit(p.group, join.cur));
      patternVars(p.group, join.cur);
    } else if (p.kind === 'minus') {
      const e = k.unit(p.group, new Set());
      join.work = add(join.work, add(e.work, e.rows));
    }
  }
  for (const p of items) {
    for (const x of p.kind === 'filter' || p.kind === 'bind' ? p.exists : []) {
      const e = k.unit(x, join.cur);
      join.work = add(join.work, mul(join.rows, add(e.work, e.rows)));
    }
  }
  return { rows: join.rows, work: join.work };
};
