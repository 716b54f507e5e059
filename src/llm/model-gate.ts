import type { Config } from '../config';
import { GateWaitTooLong, throughGate, type GateClient, type GateNamespace } from '../net/politeness/pass';
import type { GateReport } from '../net/politeness/policy';
import { LLMError, type ChatRequest } from './types';

/** A model's gate without the caller's part (its signal and where waits are told), which each call adds. */
export type ModelGate = Omit<GateClient, 'signal' | 'onWait'>;

type GateConfig = Pick<Config, 'POLITENESS' | 'LLM_CONCURRENCY' | 'LLM_TIMEOUT_MS' | 'POLITENESS_MAX_WAIT_MS'>;

/**
 * The politeness gate of each model on an OpenAI-compatible server or Workers AI (`server` = 'workers-ai'): the
 * same Durable Object class as the evidence hosts' (durable-objects/politeness-gate.ts), one object per server and
 * model, so every run of the deployment shares its concurrency and any 429's Retry-After. `POLITENESS=off` sends model calls straight out, each retrying
 * on its own. A pass lives a little longer than one attempt may take, so a run that dies mid-call frees its slot.
 */
export const modelGates = (config: GateConfig, server: string, ns: GateNamespace | undefined) => {
  if (!ns || config.POLITENESS === 'off') return undefined;
  const host = URL.canParse(server) ? new URL(server).host : server;
  const policy = { concurrency: config.LLM_CONCURRENCY, leaseMs: config.LLM_TIMEOUT_MS + 5_000, enforce: true };
  return (model: string): ModelGate => ({
    backend: ns.get(ns.idFromName(`model:${host}/${model}`)),
    policy,
    host: `${host} (model ${model})`,
    maxWaitMs: config.POLITENESS_MAX_WAIT_MS,
  });
};

/**
 * One model call attempt through its gate, when it has one: waits for a slot and any shared back-off, runs the call,
 * and hands the pass back with what `call` wrote into the report (its status; a back-off for every run). A wait
 * longer than POLITENESS_MAX_WAIT_MS fails the attempt unsent, like the 429 it stands for.
 */
export const throughModelGate = async <T>(
  gate: ModelGate | undefined,
  request: ChatRequest,
  call: (report: GateReport) => Promise<T>,
): Promise<T> => {
  let leave: ((r: GateReport) => Promise<void>) | undefined;
  if (gate) {
    try {
      const pass = await throughGate({ ...gate, signal: request.signal, onWait: request.onWait });
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
