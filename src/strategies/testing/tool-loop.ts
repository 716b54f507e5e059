import * as z from 'zod';
import { defineOptions, intOption, type OptionsOf } from '../../engine/options';
import type { Strategy } from '../../engine/types';
import type { Tool } from '../../tools/types';

/**
 * Test-only pieces (registered only when TEST_MODE=true): a strategy that calls the `tick` tool a number of
 * times, one call per step, and a tool that records every execution so tests can prove none is repeated.
 */
export const tickExecutions = new Map<string, number[]>();

/**
 * With options.gated, tick n waits until the test allows it, so a test can crash the run at a known point.
 * The wait polls plain values: a promise resolved from the test's context must not cross into the object's.
 */
const allowed = new Map<string, number>();
const waiting = new Map<string, number>();
/** Bumped by a test when it kills the objects: a waiter from before was in a dead instance and must not go on. */
const epochs = new Map<string, number>();
export const waitingAt = (key: string) => waiting.get(key) ?? 0;
export const allowTick = (key: string, n: number) => allowed.set(key, n);
export const killWaiters = (key: string) => {
  waiting.delete(key);
  epochs.set(key, (epochs.get(key) ?? 0) + 1);
};
const gate = async (key: string, n: number) => {
  const epoch = epochs.get(key) ?? 0;
  waiting.set(key, n);
  while ((allowed.get(key) ?? 0) < n) {
    await new Promise((r) => setTimeout(r, 2));
    // Locally an aborted object's timers keep running; a real dead instance runs nothing more.
    if ((epochs.get(key) ?? 0) !== epoch) throw new Error('instance was killed');
  }
  waiting.delete(key);
};

export const tickTool: Tool<{ runKey: string; n: number; delayMs: number }> = {
  name: 'tick',
  description: 'Test tool: records that call n ran, after an optional delay.',
  input: z.object({ runKey: z.string(), n: z.number().int(), delayMs: z.number().int().min(0).default(0) }),
  fromText(text) {
    return this.input.parse(JSON.parse(text));
  },
  async execute(_ctx, input) {
    if (input.delayMs) await new Promise((r) => setTimeout(r, input.delayMs));
    const list = tickExecutions.get(input.runKey) ?? [];
    list.push(input.n);
    tickExecutions.set(input.runKey, list);
    return `tick ${input.n} done`;
  },
};

interface ToolLoopState {
  next: number;
  calls: number;
  pendingThought: boolean;
}

const toolLoopOptions = defineOptions({
  calls: intOption(0, 1_000).default(3),
  delayMs: intOption(0, 60_000).default(0),
  runKey: z.string().max(200).optional(),
  think: z.boolean().default(false),
  gated: z.boolean().default(false),
  failStart: z.boolean().default(false),
});

export const toolLoopStrategy: Strategy<ToolLoopState, OptionsOf<typeof toolLoopOptions>> = {
  mode: 'test-tool-loop',
  description: 'Test only: calls the tick tool options.calls times, then asks the model for an answer.',
  options: toolLoopOptions,
  tools: [tickTool],
  start: (ctx) => {
    // options.failStart: a strategy whose start throws (the engine must end the run, not crash on a missing state).
    if (ctx.options.failStart) throw new Error('start failed on purpose');
    return { next: 1, calls: ctx.options.calls, pendingThought: true };
  },
  async step(state, ctx) {
    const { delayMs } = ctx.options;
    if (state.next <= state.calls) {
      const input = { runKey: ctx.options.runKey ?? ctx.runId, n: state.next, delayMs };
      // With options.think, each tick is preceded by a model call, to exercise the model-call limits.
      const thought = ctx.options.think
        ? (await ctx.llm.chat({ purpose: 'agent', messages: [{ role: 'user', content: `tick ${state.next}?` }] })).text
        : `I need tick ${state.next}.`;
      if (ctx.options.gated) await gate(input.runKey, input.n);
      const obs = await ctx.runTool('tick', input);
      return {
        state: { ...state, next: state.next + 1 },
        events: [
          { type: 'thought', data: { text: thought } },
          { type: 'action', data: { tool: 'tick', input } },
          { type: 'observation', data: { tool: 'tick', output: obs.output, ms: obs.ms, error: obs.error } },
        ],
      };
    }
    const reply = await ctx.llm.chat({ purpose: 'final', messages: [{ role: 'user', content: ctx.request.question }] }, { answer: true });
    return {
      state,
      done: true,
      events: [{ type: 'answer', data: { answer: reply.text.trim(), answers: {}, sources: [], claims: [] } }],
    };
  },
  partial: (state) => ({
    answer: `partial after ${state.next - 1} ticks`,
    answers: {},
    sources: [],
    claims: [],
  }),
};
