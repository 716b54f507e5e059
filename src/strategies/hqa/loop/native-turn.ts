import type { RunContext, StepEvent } from '../../../engine/types';
import type { ChatResult, ToolCall } from '../../../llm/types';
import { textInputOf } from '../../../tools/definitions';
import type { Tool } from '../../../tools/types';
import { nextPhase, thoughtEvent, type AgentState, type LoopStep } from '../agent-state';
import { parseTurn, resolveTool } from '../parse-step';
import type { Turn } from '../trace';

/** Turns with a malformed call after which a run's agent goes back to the text protocol. */
export const MAX_NATIVE_FAILURES = 3;
/** Calls one turn may run at once; a model asking for more gets the rest back unrun (the model's reply is untrusted input). */
export const MAX_CALLS_PER_TURN = 8;

/**
 * Calls some servers leave in the reply's text instead of `tool_calls` (their parser missed them): Hermes-style
 * `<tool_call>` tags, Llama's `<|python_start|>`, Mistral's `[TOOL_CALLS]`, a bare `{"name": …, "arguments": …}`.
 */
const WRITTEN_CALL = /<tool_call>|<\|python_start\|>|\[TOOL_CALLS\]|<function[=\s>]|^\s*\{\s*"name"\s*:\s*"[^"]+"\s*,\s*"(?:arguments|parameters)"\s*:/m;

const stripLabel = (text: string) => text.trim().replace(/^\**thought\**\s*:\s*/i, '').trim();

type Checked = { turn: Turn; repaired?: string };

/** One call as the model made it: runnable, or with the observation that says how to mend it. */
const checkCall = (call: ToolCall, tools: readonly Tool[]): Checked => {
  const base = { call: { id: call.id, arguments: call.arguments } };
  const name = resolveTool(call.name, tools.map((t) => t.name));
  const tool = tools.find((t) => t.name === name);
  const refuse = (observation: string, input = call.arguments): Checked => ({
    turn: { ...base, tool: name ?? call.name, input, observation, error: true },
    repaired: observation,
  });
  if (!tool) return refuse(`There is no function called "${call.name}". The functions are: ${tools.map((t) => t.name).join(', ')}.`);
  let args: unknown;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch (err) {
    return refuse(`The arguments of this ${tool.name} call were not valid JSON (${err instanceof Error ? err.message : String(err)}). Call it again with a JSON object that matches its parameters.`);
  }
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    const why = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return refuse(`The arguments of this ${tool.name} call do not fit its parameters (${why}). Call it again with arguments that do.`);
  }
  return { turn: { ...base, tool: tool.name, input: textInputOf(tool, parsed.data) } };
};

/** The state after a native turn, counting a malformed one and going back to text once they are too many. */
const counted = (state: AgentState, malformed: boolean, ctx: RunContext): AgentState => {
  const protocol = state.protocol ?? { tools: 'native' as const, failures: 0 };
  const failures = protocol.failures + (malformed ? 1 : 0);
  if (failures < MAX_NATIVE_FAILURES || protocol.tools === 'text') return { ...state, protocol: { ...protocol, failures } };
  const fellBack = `${failures} turns with a malformed function call`;
  ctx.noteProtocol('agent', { fallback: fellBack });
  return { ...state, protocol: { tools: 'text', failures, fellBack } };
};

/** A reply without calls: a final answer, a call written as text (a failure to mend), or a reply to explain the format for. */
const textReply = (state: AgentState, reply: ChatResult, ctx: RunContext): LoopStep => {
  const parsed = parseTurn(reply.text);
  if (parsed.kind === 'final') {
    const { answer, declared, response } = parsed;
    const turn: Turn = { thought: parsed.thought, final: answer, ...(declared ? { declared } : {}), ...(response ? { response } : {}) };
    return { state: { ...state, turns: [...state.turns, turn], phase: 'final' }, events: thoughtEvent(parsed.thought) };
  }
  const written = parsed.kind === 'action' || WRITTEN_CALL.test(reply.text);
  const observation = written
    ? 'Your reply wrote a tool call as text. Call the tool through the function-calling interface instead, or write "Final Answer: <answer>" when you can answer.'
    : `${parsed.kind === 'invalid' ? parsed.reason : ''} Call one or more of the functions, or write "Thought: ..." then "Final Answer: <answer>".`.trim();
  if (written) ctx.noteProtocol('agent', { repair: true });
  const next = counted({ ...state, turns: [...state.turns, { thought: stripLabel(reply.text).slice(0, 4_000), observation, error: true }] }, written, ctx);
  return {
    state: { ...next, phase: nextPhase(next) },
    events: [...thoughtEvent(stripLabel(reply.text)), { type: 'observation', data: { tool: 'format', output: observation, ms: 0, error: true } }],
  };
};

/**
 * What a native model turn leads to. Its calls become one turn each — the first with the thought, the others `joined`
 * to it — all run together by the next step (act.ts); a malformed call gets, instead of a run, the observation saying
 * how to mend it, answered to the model in its place among the others.
 */
export const afterNativeTurn = (state: AgentState, reply: ChatResult, tools: readonly Tool[], ctx: RunContext): LoopStep => {
  if (!reply.toolCalls?.length) return textReply(state, reply, ctx);
  const thought = stripLabel(reply.text);
  const checked = reply.toolCalls.map((c, i): Checked => {
    if (i < MAX_CALLS_PER_TURN) return checkCall(c, tools);
    const observation = `Not run: at most ${MAX_CALLS_PER_TURN} calls run in one turn. Call it again in a later turn if you still need it.`;
    return { turn: { call: { id: c.id, arguments: c.arguments }, tool: c.name, input: c.arguments, observation, error: true }, repaired: observation };
  });
  checked.forEach((c) => c.repaired && ctx.noteProtocol('agent', { repair: true }));
  const turns: Turn[] = checked.map((c, i) => ({ ...(i === 0 && thought ? { thought } : {}), ...(i > 0 ? { joined: true } : {}), ...c.turn }));
  const next = counted({ ...state, turns: [...state.turns, ...turns] }, checked.some((c) => c.repaired), ctx);
  const events: StepEvent[] = [
    ...thoughtEvent(thought),
    ...turns.map((t): StepEvent => ({ type: 'action', data: { tool: t.tool!, input: t.input ?? '', callId: t.call!.id } })),
  ];
  return { state: { ...next, phase: 'act' }, events };
};

/** A server that refuses functions (a 400 to `tools`): the run goes on in text, and says so in its trace. */
export const refusedFunctions = (state: AgentState, reason: string, ctx: RunContext): LoopStep => {
  const fellBack = `the model server refused function calls: ${reason.slice(0, 300)}`;
  ctx.noteProtocol('agent', { fallback: fellBack });
  return {
    state: { ...state, protocol: { tools: 'text', failures: state.protocol?.failures ?? 0, fellBack } },
    events: thoughtEvent(`The model server refused the tools as functions; this run goes on in the text protocol (${reason.slice(0, 300)}).`),
  };
};
