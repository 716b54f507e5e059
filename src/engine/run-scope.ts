import type { RequestScope } from '../evidence/live/http';
import type { GateParty } from '../net/politeness/policy';
import type { CallScope } from '../net/scope';
import type { Usage } from './types';
import { addCacheLookup, addGateWait, addModelWait } from './usage';

/**
 * The run a step's calls work for, built once per step and passed once (to its context and its services): the
 * CallScope every call hands on (src/net/scope.ts) plus the run's usage, where waits and cache lookups are counted,
 * and the step's trace, where they are told. A tool run by hand has a scope too: its party and deadline, no usage.
 */
export interface RunScope extends Pick<CallScope, 'signal' | 'party'> {
  readonly signal?: AbortSignal;
  readonly party?: GateParty;
  readonly usage?: Usage;
  /** A sentence for the step's trace: a wait at a gate, a prompt shortened to fit the model's window. */
  readonly note?: (text: string) => void;
}

/** The scope the run's model calls go with: a wait at the model's gate joins the run's usage and its trace. */
export const modelScope = (run: RunScope): CallScope => ({
  signal: run.signal,
  party: run.party,
  onWait: (text, ms) => {
    if (run.usage) addModelWait(run.usage, ms);
    run.note?.(text);
  },
});

/** The scope the run's evidence and KG requests go with: waits at the hosts' gates and cache lookups join its usage and trace. */
export const evidenceScope = (run: RunScope): RequestScope => ({
  signal: run.signal,
  party: run.party,
  onWait: (text, ms) => {
    if (run.usage) addGateWait(run.usage, ms);
    run.note?.(text);
  },
  onCache: (hit) => run.usage && addCacheLookup(run.usage, hit),
});
