import type { Config } from '../config';
import { createServices } from '../engine/services';
import { createLLM } from '../llm';
import { routeByPurpose } from '../llm/route';
import { LLMError, type LLM } from '../llm/types';
import type { Tool } from '../tools/types';
import type { GateParty } from '../net/politeness/policy';
import { publicMessage } from '../text/public-message';
import { HttpError } from './errors';

/** What a tool run by hand gives back: its observation, how long it took, and whether it failed. */
export interface HandRunResult {
  output: string;
  ms: number;
  error?: true;
}

const MODEL_TOOLS = new Set(['read', 'generateQuery']);

/** The model with every call marked as the caller's, for the model's gate. */
const forParty = (llm: LLM, party: GateParty): LLM => ({ ...llm, chat: (request, scope) => llm.chat(request, { ...scope, party: scope?.party ?? party }) });

/** A model that is not there: tools that need one fail with a clear message instead of hanging. */
const noModel = (reason: string): LLM => ({
  provider: 'none',
  model: 'none',
  acceptsImages: false,
  chat: async () => {
    throw new LLMError(reason);
  },
});

/**
 * Whose call this is at the politeness gates: the caller as auth named it (`key:<hash>`, `ip:<address>`), and the
 * call as a run of its own. The gates serve queued requests in turn across keys, so one caller's burst of tool
 * calls does not hold another's back.
 */
export const handParty = (caller: string | undefined): GateParty => ({ key: caller ?? 'open', run: `tool:${crypto.randomUUID()}` });

/**
 * Runs one tool outside any run, against the configured evidence: POST /v1/tools/{name} and the MCP tools.
 * A tool that needs a model when none is configured is a 503; a tool that fails answers its error as the observation
 * the agent would have seen. The whole call has one deadline, TOOL_TIMEOUT_MS, past which it is a 504 tool_timeout:
 * a model that answers `Retry-After: 100000` would otherwise keep the retry loop (and the request) waiting for
 * minutes. The deadline's signal stops the tool's own waits; the race answers even if a tool does not listen to it.
 */
export const runToolByHand = async (env: Env, config: Config, tool: Tool, input: unknown, how: { signal?: AbortSignal; caller?: string } = {}): Promise<HandRunResult> => {
  const { signal } = how;
  const llm = createLLM(config, env);
  if (!llm.ok && MODEL_TOOLS.has(tool.name)) throw new HttpError(503, 'llm_unavailable', `${tool.name} needs a language model. ${llm.reason}`);
  const party = handParty(how.caller);
  const services = createServices(config, env as never, { party });
  const started = Date.now();
  const deadline = new AbortController();
  const timeout = new HttpError(
    504,
    'tool_timeout',
    `${tool.name} did not finish within ${config.TOOL_TIMEOUT_MS} ms (TOOL_TIMEOUT_MS); the model or evidence server is slow or asked to retry later`,
  );
  const callerGone = () => deadline.abort(signal?.reason);
  signal?.addEventListener('abort', callerGone);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.abort(timeout);
      reject(timeout);
    }, config.TOOL_TIMEOUT_MS);
  });
  try {
    const running = tool.execute(
      {
        llm: llm.ok ? forParty(routeByPurpose(llm.llm, config.LLM_MODELS), party) : noModel(llm.reason),
        get evidence() {
          return services.evidence();
        },
        get embedder() {
          return services.embedder();
        },
        signal: deadline.signal,
      },
      input,
    );
    running.catch(() => {}); // settled after the deadline: nobody is waiting for it any more
    const output = await Promise.race([running, expired]);
    return { output, ms: Date.now() - started };
  } catch (err) {
    if (deadline.signal.reason === timeout) throw timeout;
    return { output: `Error: ${publicMessage(err instanceof Error ? err.message : String(err))}`, ms: Date.now() - started, error: true };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', callerGone);
  }
};
