import * as z from 'zod';
import { askStructured } from '../../src/llm/structured';
import type { ChatMessage, ChatRequest, LLM } from '../../src/llm/types';
import { agentSystemPrompt } from '../../src/strategies/hqa/prompt';
import { parseTurn, resolveTool } from '../../src/strategies/hqa/parse-step';
import { toolDefinitions } from '../../src/tools/definitions';
import { hqaTools } from '../../src/tools';
import type { Tool } from '../../src/tools/types';

/**
 * The fixed battery `npm run probe-model` asks a model, each task in both protocols where both apply: the agent's six
 * tools as functions against the same tools described in the text protocol, and a JSON-schema reply against the same
 * JSON asked for in words. Every answer is checked with the product's own parsers and the tools' own input schemas.
 */

export type TaskName = 'single' | 'parallel' | 'quotes' | 'streamed' | 'schema';

export interface Attempt {
  task: TaskName;
  protocol: 'native' | 'text';
  attempt: number;
  /** The reply was what the task asked for, read as the product reads it. */
  valid: boolean;
  /** Valid calls in the reply (parallel: two are asked for). */
  calls: number;
  ms: number;
  /** Why an attempt was not valid (or what the server said). */
  note?: string;
}

/** A name with quotes, an apostrophe, an ampersand, characters outside Latin-1 and a dash: the usual breakers of hand-made JSON. */
export const AWKWARD = 'Zoë "la Tour" — 東京 & Ørsted\'s';

interface Task {
  name: TaskName;
  question: string;
  /** The calls a right answer makes: tool, and what its input must hold. */
  expect: Array<{ tool: string; check: (input: any) => boolean }>;
  stream?: boolean;
}

const searchFor = (text: string) => ({ tool: 'wikisearch', check: (i: any) => typeof i.query === 'string' && i.query.includes(text) });

const TASKS: Task[] = [
  { name: 'single', question: 'Search Wikipedia for the Eiffel Tower.', expect: [searchFor('Eiffel')] },
  {
    name: 'parallel',
    question: 'Search Wikipedia for Berlin and, separately, for Madrid. The two searches do not depend on each other: make both calls now, in this one reply.',
    expect: [searchFor('Berlin'), searchFor('Madrid')],
  },
  { name: 'quotes', question: `Search Wikipedia for exactly this text, unchanged: ${AWKWARD}`, expect: [searchFor(AWKWARD)] },
  { name: 'streamed', question: 'Search Wikipedia for the Great Wall of China.', expect: [searchFor('Great Wall')], stream: true },
];

const SYSTEM_NATIVE = 'You look things up by calling the functions you are given. Call them; do not answer from memory.';

/** How many of the expected calls a list of (tool, input) pairs makes, each with input its tool's schema accepts. */
const scoreCalls = (tools: readonly Tool[], task: Task, made: Array<{ name: string; input: () => unknown }>) => {
  const valid = made.flatMap((m) => {
    const tool = tools.find((t) => t.name === resolveTool(m.name, tools.map((x) => x.name)));
    try {
      return tool ? [{ tool: tool.name, input: tool.input.parse(m.input()) }] : [];
    } catch {
      return [];
    }
  });
  const met = task.expect.filter((e) => valid.some((v) => v.tool === e.tool && e.check(v.input))).length;
  return { valid: valid.length, met, invalid: made.length - valid.length };
};

const timed = async <T>(work: () => Promise<T>): Promise<{ out?: T; error?: string; ms: number }> => {
  const started = Date.now();
  try {
    return { out: await work(), ms: Date.now() - started };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err), ms: Date.now() - started };
  }
};

const nativeAttempt = async (llm: LLM, tools: readonly Tool[], task: Task): Promise<Omit<Attempt, 'attempt'>> => {
  const request: ChatRequest = {
    purpose: 'agent',
    messages: [{ role: 'system', content: SYSTEM_NATIVE }, { role: 'user', content: task.question }],
    tools: toolDefinitions(tools),
    toolChoice: 'auto',
    maxTokens: 400,
    temperature: 0,
  };
  // A caller that listens for deltas is streamed to.
  const { out, error, ms } = await timed(() => llm.chat(request, task.stream ? { onDelta: () => {} } : {}));
  if (!out) return { task: task.name, protocol: 'native', valid: false, calls: 0, ms, note: error };
  const made = (out.toolCalls ?? []).map((c) => ({ name: c.name, input: () => JSON.parse(c.arguments) }));
  const score = scoreCalls(tools, task, made);
  const valid = score.met === task.expect.length && score.invalid === 0;
  const note = valid ? undefined : made.length ? `${score.invalid} malformed of ${made.length} calls; ${score.met} of ${task.expect.length} expected` : `no tool_calls; text: ${out.text.slice(0, 120)}`;
  return { task: task.name, protocol: 'native', valid, calls: score.valid, ms, ...(note ? { note } : {}) };
};

const textAttempt = async (llm: LLM, tools: readonly Tool[], task: Task): Promise<Omit<Attempt, 'attempt'>> => {
  const messages: ChatMessage[] = [
    { role: 'system', content: agentSystemPrompt(tools) },
    { role: 'user', content: `Question: ${task.question}\nThought:` },
  ];
  const { out, error, ms } = await timed(() => llm.chat({ purpose: 'agent', messages, stop: ['Observation:'], maxTokens: 400, temperature: 0 }, task.stream ? { onDelta: () => {} } : {}));
  if (!out) return { task: task.name, protocol: 'text', valid: false, calls: 0, ms, note: error };
  const turn = parseTurn(out.text);
  if (turn.kind !== 'action') return { task: task.name, protocol: 'text', valid: false, calls: 0, ms, note: `no action: ${out.text.slice(0, 120)}` };
  const tool = tools.find((t) => t.name === resolveTool(turn.tool, tools.map((x) => x.name)));
  // The text protocol has one action per turn: the first expected call is what a right turn makes.
  const score = scoreCalls(tools, { ...task, expect: task.expect.slice(0, 1) }, [{ name: turn.tool, input: () => tool?.fromText(turn.input) }]);
  const valid = score.met === 1;
  return { task: task.name, protocol: 'text', valid, calls: score.valid, ms, ...(valid ? {} : { note: `action ${turn.tool}: ${turn.input.slice(0, 120)}` }) };
};

const CAPITAL = z.object({ city: z.string().min(1), country: z.string().min(1), population_millions: z.number() });
const CAPITAL_QUESTION = 'What is the capital of Japan, and about how many million people live there?';

/** The JSON task: with the schema as `response_format`, and in words (the text protocol's way of asking for a structure). */
const schemaAttempt = async (llm: LLM, protocol: 'native' | 'text'): Promise<Omit<Attempt, 'attempt'>> => {
  const words = protocol === 'text' ? ' Reply with JSON only: {"city": "...", "country": "...", "population_millions": <number>}.' : '';
  const request: ChatRequest = { purpose: 'agent', messages: [{ role: 'system', content: `Answer with the facts asked for.${words}` }, { role: 'user', content: CAPITAL_QUESTION }], maxTokens: 200, temperature: 0 };
  const spec = { name: 'capital', schema: CAPITAL, fromText: (t: string) => { try { return JSON.parse(/\{[\s\S]*\}/.exec(t)?.[0] ?? ''); } catch { return undefined; } } };
  const { out, error, ms } = await timed(() => askStructured(llm, request, spec, protocol === 'native'));
  // Under native only the schema's own JSON counts: a reply the text parser had to rescue is not JSON-schema validity.
  const valid = !!out?.value && (protocol === 'text' || out.via === 'schema');
  const note = error ?? (valid ? undefined : (out?.fellBack ?? `not the schema's JSON: ${out?.result.text.slice(0, 120)}`));
  return { task: 'schema', protocol, valid, calls: 0, ms, ...(note ? { note } : {}) };
};

/** Runs every task `repeats` times in both protocols, one call at a time (a probe must not be the load it measures). */
export const runBattery = async (llm: LLM, repeats: number, onAttempt: (a: Attempt) => void = () => {}): Promise<Attempt[]> => {
  const tools = hqaTools();
  const attempts: Attempt[] = [];
  const keep = (a: Omit<Attempt, 'attempt'>, attempt: number) => {
    const full = { ...a, attempt };
    attempts.push(full);
    onAttempt(full);
  };
  for (let n = 1; n <= repeats; n++) {
    for (const task of TASKS) {
      keep(await nativeAttempt(llm, tools, task), n);
      keep(await textAttempt(llm, tools, task), n);
    }
    keep(await schemaAttempt(llm, 'native'), n);
    keep(await schemaAttempt(llm, 'text'), n);
  }
  return attempts;
};
