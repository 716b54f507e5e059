import type { Recipe } from '../../engine/recipe';
import type { StepEvent } from '../../engine/types';
import type { SelectionMode } from '../../fewshot';
import type { Scope } from './scope';
import type { Turn } from './trace';

export type Phase = 'think' | 'act' | 'extract' | 'final';

/** What one agent loop keeps between steps; stored with the run after every step (durable-objects/run-store.ts). */
export interface AgentState {
  phase: Phase;
  /** Kept so that `partial` (which has no context) can tell answering reads from bridge reads. */
  question: string;
  /** Rendered solution processes shown to the model, fixed at start so a resumed run sees the same prompt. */
  examples: string[];
  exampleIds: string[];
  selection: SelectionMode;
  turns: Turn[];
  /** Agent calls made so far, unparseable replies included. */
  iterations: number;
  maxIterations: number;
  /** `paper` runs the published recipe (docs/FIDELITY.md); fixed at start so a resumed run keeps it. */
  recipe: Recipe;
  /** The sources this agent may use; a restricted agent sees only that source's tools. */
  scope: Scope;
  /** Whether the closed-book call runs beside the first agent call. */
  withParametric: boolean;
  /** The closed-book answer; `error` when that call failed (the run goes on without it). */
  parametric?: { answer?: string; error?: string };
  /** The answer the extract step produced after the iteration limit. */
  extracted?: string;
  /**
   * Native tool protocol (absent: text): the tools go to the model as functions. `failures` counts turns with a
   * malformed call; at MAX_NATIVE_FAILURES, or when the server refuses functions, `tools` turns to text for the rest
   * of the run and `fellBack` says why.
   */
  protocol?: { tools: 'native' | 'text'; failures: number; fellBack?: string };
}

/** One step of the loop: the state after it and what it streams. */
export interface LoopStep {
  state: AgentState;
  events: StepEvent[];
}

/** After a model turn or a tool result: think again, or extract once the iteration budget is spent. */
export const nextPhase = (state: AgentState): Phase => (state.iterations >= state.maxIterations ? 'extract' : 'think');

export const thoughtEvent = (text: string): StepEvent[] => (text ? [{ type: 'thought', data: { text } }] : []);

const isAgentState = (s: unknown): s is Partial<AgentState> & { turns: Turn[] } =>
  typeof s === 'object' && s !== null && Array.isArray((s as AgentState).turns) && typeof (s as AgentState).maxIterations === 'number';

/**
 * An agent state stored before the recipe, the scope and the closed-book switch were kept in it (the single-source
 * agents and `options.recipe` came later): such a run is a hybrid agent of our recipe with the closed-book call.
 * Any other value is returned as it is. The agent strategies' `upgradeState` (agent.ts): run storage applies it
 * once, when it migrates such a run (durable-objects/run/migrations.ts).
 */
export const withAgentSettings = (state: unknown): unknown =>
  isAgentState(state) ? { recipe: 'ours', scope: 'hybrid', withParametric: true, ...state } : state;
