import type { Config } from '../config';
import type { GateClient, GateNamespace } from '../net/politeness/pass';

/** A model's gate without the caller's part (its signal and where waits are told), which each call adds. */
export type ModelGate = Omit<GateClient, 'signal' | 'onWait'>;

type GateConfig = Pick<Config, 'POLITENESS' | 'LLM_CONCURRENCY' | 'LLM_TIMEOUT_MS' | 'POLITENESS_MAX_WAIT_MS'>;

/**
 * The politeness gate of each model on an OpenAI-compatible server: the same Durable Object class as the evidence
 * hosts' (durable-objects/politeness-gate.ts), one object per server and model, so every run of the deployment
 * shares its concurrency and any 429's Retry-After. `POLITENESS=off` sends model calls straight out, each retrying
 * on its own. A pass lives a little longer than one attempt may take, so a run that dies mid-call frees its slot.
 */
export const modelGates = (config: GateConfig, baseURL: string, ns: GateNamespace | undefined) => {
  if (!ns || config.POLITENESS === 'off') return undefined;
  const host = new URL(baseURL).host;
  const policy = { concurrency: config.LLM_CONCURRENCY, leaseMs: config.LLM_TIMEOUT_MS + 5_000, enforce: true };
  return (model: string): ModelGate => ({
    backend: ns.get(ns.idFromName(`model:${host}/${model}`)),
    policy,
    host: `${host} (model ${model})`,
    maxWaitMs: config.POLITENESS_MAX_WAIT_MS,
  });
};
