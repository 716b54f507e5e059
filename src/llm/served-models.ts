import type { LLM } from './types';

/** How long one answer of the model list is trusted: /healthz is polled, the server's list rarely changes. */
const KEEP_MS = 30_000;
/** Names shown when saying what the server does serve; a server may list hundreds. */
const SHOWN = 12;

/** A configured model name and the variable that set it (LLM_MODEL, LLM_MODEL_CODE, …). */
export interface WantedModel {
  name: string;
  setting: string;
}

const kept = new WeakMap<LLM, { key: string; at: number; problem: Promise<string | undefined> }>();

/**
 * Why runs will fail on the configured model names, by the server's own list (GET /v1/models): a name it does not
 * serve, or a server that cannot be asked. Undefined when every name is served or the server keeps no list.
 * The answer (a promise, so concurrent polls share one request) is kept KEEP_MS per provider and names.
 */
export const modelProblem = (llm: LLM, wanted: WantedModel[], now = Date.now()): Promise<string | undefined> => {
  if (!llm.servedModels) return Promise.resolve(undefined);
  const key = wanted.map((w) => `${w.setting}=${w.name}`).join('\n');
  const hit = kept.get(llm);
  if (hit && hit.key === key && now - hit.at < KEEP_MS) return hit.problem;
  const problem = llm.servedModels().then(
    (served) => (served ? unserved(served, wanted) : undefined),
    (err: Error) => `the model list could not be read: ${err.message}`,
  );
  kept.set(llm, { key, at: now, problem });
  return problem;
};

const unserved = (served: string[], wanted: WantedModel[]) => {
  const missing = wanted.filter((w) => !served.includes(w.name));
  if (!missing.length) return undefined;
  const names = missing.map((w) => `"${w.name}" (${w.setting})`).join(', ');
  const listed = served.length
    ? `it serves ${served.slice(0, SHOWN).map((n) => `"${n.slice(0, 100)}"`).join(', ')}${served.length > SHOWN ? ` and ${served.length - SHOWN} more` : ''}`
    : 'its list is empty';
  return `the model server does not serve ${names}: ${listed} (GET /v1/models). Set ${missing[0]!.setting} to a served name.`;
};
