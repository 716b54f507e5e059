import type { Config } from '../config';
import { holdOf, type Board } from '../net/politeness/board';
import { GateWaitTooLong, throughGate, type Gate, type GateNamespace } from '../net/politeness/pass';
import type { GateHold, GateReport } from '../net/politeness/policy';
import type { CallScope } from '../net/scope';
import { LLMError } from './types';

/** A model's gate; the caller's part (its signal, where waits are told, whose call it is) is each call's scope. */
export type ModelGate = Gate;

type GateConfig = Pick<Config, 'POLITENESS' | 'LLM_CONCURRENCY' | 'LLM_TIMEOUT_MS' | 'POLITENESS_MAX_WAIT_MS' | 'POLITENESS_MAX_BACKOFF_MS'>;

/**
 * The politeness gate of each model on an OpenAI-compatible server or Workers AI (`server` = 'workers-ai'): the
 * same Durable Object class as the evidence hosts' (durable-objects/politeness-gate.ts), one object per server and
 * model, so every run of the deployment shares its concurrency and any 429's Retry-After (held at most
 * POLITENESS_MAX_BACKOFF_MS). `POLITENESS=off` sends model calls straight out, each retrying on its own. A pass lives
 * a little longer than one attempt may take, so a run that dies mid-call frees its slot.
 */
export const modelGates = (config: GateConfig, server: string, ns: GateNamespace | undefined) => {
  if (!ns || config.POLITENESS === 'off') return undefined;
  const host = URL.canParse(server) ? new URL(server).host : server;
  const policy = { concurrency: config.LLM_CONCURRENCY, leaseMs: config.LLM_TIMEOUT_MS + 5_000, maxBackoffMs: config.POLITENESS_MAX_BACKOFF_MS, enforce: true };
  return (model: string): ModelGate => {
    const name = `model:${host}/${model}`;
    // The gate knows its own name, to publish its hold under it for /healthz (src/net/politeness/board.ts).
    return { backend: ns.get(ns.idFromName(name)), policy: { ...policy, name }, host: `${host} (model ${model})`, maxWaitMs: config.POLITENESS_MAX_WAIT_MS };
  };
};

/** Which of these models their gates hold back right now (a server's Retry-After still running), by the status board, for /healthz. */
export const heldModels = (config: GateConfig, server: string, ns: GateNamespace | undefined, models: string[], board: Board, now = Date.now()): Array<{ host: string; hold: GateHold }> => {
  const gateOf = modelGates(config, server, ns);
  if (!gateOf) return [];
  return [...new Set(models)]
    .map((m) => {
      const gate = gateOf(m);
      return { host: gate.host, hold: holdOf(board, gate.policy.name!, gate.policy.maxBackoffMs, now) };
    })
    .filter((h) => h.hold.ms > 0);
};

/**
 * One model call attempt through its gate, when it has one: waits for a slot and any shared back-off, runs the call,
 * and hands the pass back with what `call` wrote into the report (its status; a back-off for every run). A wait
 * longer than POLITENESS_MAX_WAIT_MS fails the attempt unsent, like the 429 it stands for.
 */
export const throughModelGate = async <T>(
  gate: ModelGate | undefined,
  scope: CallScope,
  call: (report: GateReport) => Promise<T>,
): Promise<T> => {
  let leave: ((r: GateReport) => Promise<void>) | undefined;
  if (gate) {
    try {
      const pass = await throughGate(gate, scope);
      if (pass.kind === 'granted') leave = pass.leave;
    } catch (err) {
      if (err instanceof GateWaitTooLong) throw new LLMError(err.message, 429);
      throw err;
    }
  }
  const started = Date.now();
  const report: GateReport = { ms: 0, status: 0 };
  try {
    const out = await call(report);
    report.status = 200;
    return out;
  } finally {
    report.ms = Date.now() - started;
    await leave?.(report).catch(() => {});
  }
};
