import type { ChatRequest, ChatResult, ChatScope, LLM, LLMErrorCode, Purpose } from './types';
import { untilAborted } from '../net/until-aborted';
import { cutAtStop } from './stop';
import { LLMError } from './types';

/** A reply: fixed text, or computed from the request (e.g. to answer what a prompt asks). */
export type ScriptedReply =
  | string
  | ((request: ChatRequest) => string | Promise<string>)
  | { error: string; status?: number; code?: LLMErrorCode }
  /** Sent in these pieces, `gapMs` apart, to a caller that asks for deltas (a streaming server). */
  | { pieces: string[]; gapMs?: number }
  /** Function calls (native tool protocol), with optional text beside them; arguments as sent, JSON or not. */
  | { toolCalls: ScriptedCall[]; text?: string };

/** A scripted function call: an object for `arguments` is sent as its JSON; ids default to `call_<n>`. */
export interface ScriptedCall {
  name: string;
  arguments: string | Record<string, unknown>;
  id?: string;
}

/**
 * Replies per purpose, consumed in order. `default` serves any purpose without its own queue.
 * A purpose whose queue is empty (and no default) fails loudly, so a test never passes by accident.
 */
export type Script = Partial<Record<Purpose | 'default', ScriptedReply[]>>;

export interface ScriptedLLM extends LLM {
  readonly requests: ChatRequest[];
  /** The scope each request came with, in the same order (whether it streamed, whose call it was, …). */
  readonly scopes: ChatScope[];
  /** Replies not yet consumed, per purpose. */
  remaining(): Record<string, number>;
}

/** A streamed reply: each piece to `onDelta` as it "arrives"; the caller's signal ends it like a real stream. */
const sendPieces = async ({ pieces, gapMs = 0 }: { pieces: string[]; gapMs?: number }, scope: ChatScope) => {
  for (const [i, piece] of pieces.entries()) {
    if (i > 0 && gapMs) await untilAborted(new Promise((r) => setTimeout(r, gapMs)), scope.signal);
    scope.onDelta?.(piece);
  }
  return pieces.join('');
};

const toolCallsOf = (calls: ScriptedCall[]) =>
  calls.map((c, i) => ({ id: c.id ?? `call_${i + 1}`, name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) }));

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** The test double for every model call: fixed replies per test, and a record of the requests it got. */
export const scriptedLLM = (script: Script, options: { acceptsImages?: boolean } = {}): ScriptedLLM => {
  const queues = new Map<string, ScriptedReply[]>(Object.entries(script).map(([k, v]) => [k, [...(v ?? [])]]));
  const requests: ChatRequest[] = [];
  const scopes: ChatScope[] = [];
  return {
    provider: 'scripted',
    model: 'scripted',
    acceptsImages: options.acceptsImages ?? false,
    requests,
    scopes,
    remaining: () => Object.fromEntries([...queues].map(([k, v]) => [k, v.length])),
    async chat(request: ChatRequest, scope: ChatScope = {}): Promise<ChatResult> {
      requests.push(request);
      scopes.push(scope);
      const queue = queues.get(request.purpose)?.length ? queues.get(request.purpose) : queues.get('default');
      const reply = queue?.shift();
      if (reply === undefined) {
        throw new LLMError(`scripted model has no reply left for purpose "${request.purpose}"`);
      }
      if (typeof reply === 'object' && 'error' in reply) throw new LLMError(reply.error, reply.status, false, reply.code);
      // Like a real provider, a call ends when its signal aborts (a slow scripted reply stands for a slow server).
      scope.signal?.throwIfAborted();
      const calls = typeof reply === 'object' && 'toolCalls' in reply ? toolCallsOf(reply.toolCalls) : undefined;
      const raw =
        typeof reply === 'function'
          ? await untilAborted(Promise.resolve(reply(request)), scope.signal)
          : typeof reply === 'object'
            ? 'pieces' in reply
              ? await sendPieces(reply, scope)
              : (reply.text ?? '')
            : reply;
      // Like a real server, generation ends at the first stop sequence.
      const text = cutAtStop(raw, request.stop);
      if (typeof reply !== 'object' || (calls && text)) scope.onDelta?.(text);
      const prompt = request.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
      return {
        text,
        usage: { promptTokens: estimateTokens(prompt), completionTokens: estimateTokens(text + (calls ?? []).map((c) => c.arguments).join('')) },
        finishReason: calls?.length ? 'tool_calls' : 'stop',
        model: request.model ?? 'scripted',
        ...(calls?.length ? { toolCalls: calls } : {}),
      };
    },
  };
};

/**
 * The script the Worker's `scripted` provider serves (LLM_PROVIDER=scripted, tests only).
 * Tests run in the same isolate as the Worker and its Durable Objects, so they can install it here.
 */
let installed: LLM | undefined;
export const installScript = (script: Script, options?: { acceptsImages?: boolean }): ScriptedLLM => {
  const llm = scriptedLLM(script, options);
  installed = llm;
  return llm;
};
/** Serves a provider of the test's making instead (Workers AI over a fake binding), under the same switch. */
export const installModel = (llm: LLM): void => {
  installed = llm;
};
export const installedScript = (): LLM | undefined => installed;
