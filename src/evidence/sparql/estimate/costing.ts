import type { Pattern, Term } from '../query-shape';

/** What the store holds, counted once per engine instance; the estimates scale with it (a live-sized graph too). */
export interface GraphStats {
  triples: number;
  subjects: number;
  objects: number;
  predicates: Map<string, { count: number; subjects: number; objects: number }>;
}

export type Hazard =
  | { kind: 'cartesian'; left: number; right: number; text: string }
  | { kind: 'unbound'; text: string }
  | { kind: 'closure'; text: string; rows: number };

export interface Estimate {
  /** Rows per incoming binding. */
  rows: number;
  /** Rows built on the way, per incoming binding. */
  work: number;
}

/**
 * What every cost rule reads: the store's statistics, the hazards found so far (rules add to them), and the rule for
 * a nested pattern, handed in by cost.ts so that the rules need not import each other in a circle.
 */
export interface Costing {
  readonly stats: GraphStats;
  /** Distinct nodes in the store: where a zero-length path may start and end. */
  readonly nodes: number;
  /** Triples per predicate, for a predicate variable bound elsewhere. */
  readonly avgPredicate: number;
  readonly hazards: Hazard[];
  unit(p: Pattern, cur: Set<string>): Estimate;
}

const CAP = 1e18;
export const mul = (a: number, b: number) => Math.min(CAP, a * b);
export const add = (a: number, b: number) => Math.min(CAP, a + b);

/** A constant, or a variable an earlier part has bound. */
export const isBound = (t: Term, cur: Set<string>) => t.kind === 'const' || cur.has(t.name);
