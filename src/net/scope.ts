import type { GateParty } from './politeness/policy';

/**
 * Who a call is made for and what it tells them, handed once to every call made on their behalf (a model call, an
 * evidence request, a wait at a politeness gate) beside what the call asks: a run step's calls, or a tool run by hand.
 * The run engine builds it from the run's scope (src/engine/run-scope.ts), which adds the run's usage and trace.
 */
export interface CallScope {
  /** Ends the call and any wait for it: the run's wall time or cancel, a hand-run tool's deadline. */
  readonly signal?: AbortSignal;
  /** Whose call this is (API key and run): a politeness gate serves the calls it holds in turn, key by key, then run by run. */
  readonly party?: GateParty;
  /** Told when the call had to wait at a politeness gate: a sentence for the run's trace, and how long. */
  readonly onWait?: (note: string, ms: number) => void;
}
