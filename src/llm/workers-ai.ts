import { eventStream } from '../net/event-stream';
import { untilAborted } from '../net/until-aborted';
import { type CallBudget, checkTextSize, REPLY_MIN_PIECE_BYTES, startAttempt } from './call-budget';
import type { ModelGate } from './model-gate';
import { callWithRetries } from './model-retry';
import { cutAtStop } from './stop';
import type { ChatRequest, ChatResult, ChatScope, LLM, TokenUsage } from './types';
import { LLMError } from './types';
import { readWorkersAIOutput, streamsOnWorkersAI, workersAIInputs, type WorkersAIOutput } from './workers-ai-wire';

export const DEFAULT_WORKERS_AI_MODEL = '@cf/meta/llama-3.3-70b-instruct-fp8-fast';

type Run = (model: string, inputs: unknown, options: { signal: AbortSignal }) => Promise<unknown>;

export interface WorkersAIOptions {
  model?: string;
  budget: CallBudget;
  maxRetries?: number;
  /** The model's politeness gate, shared by every run (src/llm/model-gate.ts): LLM_CONCURRENCY, and a shared back-off when Workers AI is out of capacity. */
  gateFor?: (model: string) => ModelGate;
}

/** Workers AI's "Out of capacity" (internal code 3040, HTTP 429): every run holds back this long, the binding names no wait. */
const OUT_OF_CAPACITY = /\b3040\b|out of capacity|capacity temporarily exceeded/i;
const CAPACITY_BACKOFF_MS = 2_000;
/**
 * Workers AI refusing the request as sent (input schema errors, code 5006, and JSON mode's "couldn't be met"): asking
 * again cannot help, and a caller that sent functions or a schema goes back to text on a 400 (src/llm/structured.ts).
 */
const REFUSED_INPUT = /\b5006\b|bad input|oneOf at|JSON Mode couldn't be met/i;

/**
 * The binding's stream (`stream: true`): server-sent events `data: {"response":"…"}`, usage on a late one, then
 * `data: [DONE]`. Read under the byte and piece caps and the attempt's signal, so neither an endless nor a stalled
 * stream holds us, and in whole events (src/net/event-stream.ts), so each piece is split into lines once.
 */
const readEvents = async (stream: ReadableStream<Uint8Array>, budget: CallBudget, signal: AbortSignal, onDelta: (t: string) => void) => {
  const reader = eventStream(stream, budget.maxBytes, { signal, minPieceBytes: REPLY_MIN_PIECE_BYTES }).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let usage: WorkersAIOutput['usage'];
  const take = (line: string) => {
    const data = /^data:\s?(.*)$/.exec(line.trim())?.[1];
    if (!data || data === '[DONE]') return;
    let event: WorkersAIOutput;
    try {
      event = JSON.parse(data) as WorkersAIOutput;
    } catch {
      throw new LLMError('Workers AI sent a stream event that is not JSON', undefined, true);
    }
    if (typeof event.response === 'string' && event.response) {
      text += event.response;
      onDelta(event.response);
    }
    if (event.usage) usage = event.usage;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    decoder.decode(value).split(/\r\n|\r|\n/).forEach(take);
  }
  return { response: text, usage };
};

const usageOf = (out: WorkersAIOutput, text: string): TokenUsage => ({
  promptTokens: out.usage?.prompt_tokens ?? 0,
  completionTokens: out.usage?.completion_tokens ?? Math.ceil(text.length / 4),
});

/**
 * Workers AI through the native `env.AI` binding. The binding has no stop sequences for every model,
 * so the text is cut at the first stop string here; Workers AI meters by neurons, so purpose goes to our usage only.
 * A caller that wants deltas gets the binding's stream; either way one reply keeps to the call budget.
 */
export const workersAIProvider = (ai: Ai, opts: WorkersAIOptions): LLM => {
  const model = opts.model ?? DEFAULT_WORKERS_AI_MODEL;
  const run = (ai as unknown as { run: Run }).run.bind(ai);
  return {
    provider: 'workers-ai',
    model,
    acceptsImages: false,
    async chat(request: ChatRequest, scope: ChatScope = {}): Promise<ChatResult> {
      const chosen = request.model ?? model;
      const inputs = workersAIInputs(request);
      const read = async (signal: AbortSignal): Promise<WorkersAIOutput> => {
        if (!scope.onDelta || !streamsOnWorkersAI(request)) return ((await untilAborted(run(chosen, inputs, { signal }), signal)) ?? {}) as WorkersAIOutput;
        const stream = await untilAborted(run(chosen, { ...inputs, stream: true }, { signal }), signal);
        if (!(stream instanceof ReadableStream)) throw new LLMError('Workers AI did not stream although asked to', undefined, true);
        return readEvents(stream, opts.budget, signal, scope.onDelta);
      };
      const call = async (report: { status: number; backoffMs?: number; backoffReason?: string }): Promise<ChatResult> => {
        const attempt = startAttempt(opts.budget, scope.signal);
        try {
          const out = await read(attempt.signal);
          attempt.cutShort();
          const reply = readWorkersAIOutput(out ?? {});
          const text = cutAtStop(checkTextSize(reply.text, opts.budget.maxBytes), request.stop);
          const calls = reply.toolCalls.length ? { toolCalls: reply.toolCalls } : {};
          return { text, usage: usageOf(out, text), finishReason: reply.toolCalls.length ? 'tool_calls' : 'stop', model: chosen, ...calls };
        } catch (err) {
          const why = attempt.explain(err);
          if (why instanceof Error && OUT_OF_CAPACITY.test(why.message)) {
            [report.status, report.backoffMs, report.backoffReason] = [429, CAPACITY_BACKOFF_MS, 'Workers AI is out of capacity (3040)'];
          }
          if (why instanceof LLMError) throw why;
          const text = why instanceof Error ? why.message : String(why);
          throw REFUSED_INPUT.test(text) ? new LLMError(`Workers AI refused the request: ${text}`, 400) : new LLMError(`Workers AI call failed: ${text}`, undefined, true);
        } finally {
          attempt.end();
        }
      };
      // Its own backoff even when the gate holds the model: the gate's wait runs from the 429, so the two overlap.
      return callWithRetries(scope, opts.gateFor?.(chosen), { retries: opts.maxRetries ?? 2, waitFor: (n) => 300 * 2 ** n }, call);
    },
  };
};
