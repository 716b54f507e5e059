import type { Config } from '../config';
import { heldHosts, type GateNamespace } from '../evidence/live/politeness';
import { readBoard } from '../net/politeness/board';
import { heldModels } from '../llm/model-gate';
import { holdNote, REPORTED_HOLD_MS, seconds } from '../net/politeness/policy';

export interface HeldGates {
  /** One sentence per host a gate holds back longer than a few seconds. */
  warnings: string[];
  /** Why the model cannot be called now (its gate holds it back), for `llm.ready: false`. */
  model?: string;
}

/**
 * What /healthz says about upstreams their politeness gates hold back right now (a Retry-After or maxlag still
 * running, never longer than POLITENESS_MAX_BACKOFF_MS): the live evidence hosts when evidence is live, and the
 * model's server for each configured model. Read from the status board the gates publish to (at most a second old,
 * one read per isolate however many probes come), never by asking each gate: under load the gates are busy.
 */
export const heldGates = async (config: Config, env: Env, llm: { provider: string; model: string } | undefined): Promise<HeldGates> => {
  const ns = env.POLITENESS_GATE as unknown as GateNamespace | undefined;
  if (!ns || config.POLITENESS === 'off') return { warnings: [] };
  const server = llm?.provider === 'openai' ? config.LLM_BASE_URL : llm?.provider === 'workers-ai' ? 'workers-ai' : undefined;
  const board = await readBoard(ns);
  const hosts = config.EVIDENCE === 'live' ? heldHosts(config, board) : [];
  const models = server && llm ? heldModels(config, server, ns, [llm.model, ...Object.values(config.LLM_MODELS)], board) : [];
  const cap = ` (POLITENESS_MAX_BACKOFF_MS holds a host for at most ${seconds(config.POLITENESS_MAX_BACKOFF_MS)})`;
  const notes = (held: typeof hosts) => held.filter((h) => h.hold.ms > REPORTED_HOLD_MS).map((h) => holdNote(h.host, h.hold) + cap);
  const modelNotes = notes(models);
  return { warnings: [...notes(hosts), ...modelNotes], ...(modelNotes.length ? { model: modelNotes.join('; ') } : {}) };
};
