import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import { CONTEXT_TABLE, contextPassageKey } from '../../engine/attribution/context-documents';
import type { AnswerDraft, ClaimReads, RunContext, StepEvent, Strategy } from '../../engine/types';
import { runProgram } from '../../sandbox';
import type { Json, RunProgramResult } from '../../sandbox/types';
import { formatAnswer, isEmptyAnswer } from './answer';
import { extractCode } from './extract-code';
import { programExamples } from './fewshot';
import { claimReads, TRACKED_ENTRY, unwrapReads, withReadTracking } from './cell-reads';
import { hostFunctionsFor, linksOf } from './host-functions';
import { linearise, parseProgramContext, toSandboxTable, type ProgramContext } from './input';
import type { SandboxTable } from './sandbox-table';
import codePaperPrompt from './prompts/code-paper.txt';
import codePrompt from './prompts/code.txt';
import refinePaperPrompt from './prompts/refine-paper.txt';
import refinePrompt from './prompts/refine.txt';
import { simplify } from './simplify';
import { programOptions, type ProgramOptions } from './options';
import { PROGRAM_RECIPES, type ProgramRecipe } from './recipes';
import { thought, type ProgramState } from './state';

export type { ProgramState } from './state';

const MAX_FAILURE_CHARS = 2_500;

/** Every step re-reads the request's context: the state stays small and the table is never stored twice. */
const contextOf = (ctx: RunContext): ProgramContext => {
  const parsed = parseProgramContext(ctx.request.context);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

/**
 * The program's answer rests on the table and its linked passages; the engine verifies it there (a computed value
 * that no cell or passage holds stays unverified, however cleanly the program ran), and it supports the answer in
 * the cells the program read and the passages its `extract_info` read (./cell-reads.ts).
 */
const tableAnswer = (value: string, input: ProgramContext | undefined, read?: ClaimReads): AnswerDraft => ({
  answer: value,
  answers: { table: value },
  sources: [{ title: input?.table.title || 'table', kind: 'table' }],
  claims: [{ source: 'table', answer: value, keys: [CONTEXT_TABLE, ...Object.keys(input?.passages ?? {}).map(contextPassageKey)], ...(read ? { read } : {}) }],
});

// The paper asks for a description of the solution before the code, in the same reply.
const DESCRIBE_FIRST =
  'First describe your solution in a few sentences to make your plan clear, then write `function solve(table)` in one ```javascript code block.';

const codeMessages = (table: SandboxTable, input: ProgramContext, question: string, examples: number, recipe: ProgramRecipe, variant: string) => {
  const shots = programExamples(examples, variant);
  const listing = linearise(table, input.passages, input.images ?? {});
  return [
    { role: 'system' as const, content: `${(recipe.publishedCodePrompt ? codePaperPrompt : codePrompt).trim()}\n\n${DATA_FENCE_RULE}` },
    {
      role: 'user' as const,
      content: [
        shots.length ? `Worked examples:\n\n${shots.join('\n\n---\n\n')}\n\n---\n` : '',
        // The table and its passages come from the caller: fenced as data. The question keeps the examples' one-line
        // form, which nothing in it can break out of.
        `Now the real task.\n${fence('TABLE', listing)}\nQuestion: ${oneLine(question)}`,
        recipe.publishedCodePrompt ? `\n${DESCRIBE_FIRST}` : '',
      ].join('\n'),
    },
  ];
};

/** Step (b) and (d): one model call that yields a `solve` program. */
const writeProgram = async (state: ProgramState, ctx: RunContext<ProgramOptions>, input: ProgramContext, refine: boolean) => {
  const table = toSandboxTable(input);
  const examples = ctx.options.fewshot;
  const recipe = PROGRAM_RECIPES[ctx.options.recipe];
  const messages = !refine
    ? codeMessages(table, input, state.question, examples, recipe, ctx.request.variant)
    : recipe.refineInConversation
      ? // The paper continues the conversation: its code prompt, the program it wrote, then what went wrong.
        [
          ...codeMessages(table, input, state.question, examples, recipe, ctx.request.variant),
          { role: 'assistant' as const, content: `\`\`\`javascript\n${state.code ?? ''}\n\`\`\`` },
          { role: 'user' as const, content: `${refinePaperPrompt.trim()}\n\nWhat happened:\n${fence('RESULT', state.failure ?? 'the result was empty')}` },
        ]
      : [
          { role: 'system' as const, content: `${refinePrompt.trim()}\n\n${DATA_FENCE_RULE}` },
          {
            role: 'user' as const,
            content:
              `${fence('TABLE', linearise(table, input.passages, input.images ?? {}))}\nQuestion: ${oneLine(state.question)}\n\n` +
              `Previous program:\n\`\`\`javascript\n${state.code ?? ''}\n\`\`\`\n\nWhat went wrong:\n${fence('RESULT', state.failure ?? 'unknown')}`,
          },
        ];
  const reply = await ctx.llm.chat({ purpose: refine ? 'refine' : 'code', messages, maxTokens: 1024 });
  const code = extractCode(reply.text);
  const rounds = refine ? state.rounds + 1 : state.rounds;
  if (!code) {
    const failure = 'The reply contained no JavaScript function named solve. Reply with `function solve(table) { ... }` in a code block.';
    return finishAttempt({ ...state, rounds, code: reply.text.slice(0, 2000) }, ctx, input, { ok: false, error: failure }, [
      thought(refine ? `Refinement round ${rounds} produced no program.` : 'The model produced no program.'),
    ]);
  }
  return {
    state: { ...state, rounds, code, phase: 'run' as const },
    events: [thought(refine ? `Rewrote the program (refinement round ${rounds}).` : 'Wrote a program over the table.')],
  };
};

/** Step (c): one sandbox attempt, streamed as action + observation. */
const runAttempt = async (state: ProgramState, ctx: RunContext<ProgramOptions>, input: ProgramContext) => {
  const code = state.code ?? '';
  const started = Date.now();
  const tracked = await runProgram({
    code: withReadTracking(code),
    entry: TRACKED_ENTRY,
    args: [toSandboxTable(input) as unknown as Json],
    hostFunctions: hostFunctionsFor(ctx, input),
    caps: { workUnits: ctx.config.SANDBOX_WORK_UNITS },
  });
  const { value, reads } = tracked.ok ? unwrapReads(tracked.value) : { value: null, reads: [] };
  const result: RunProgramResult = tracked.ok ? { ...tracked, value } : tracked;
  const ms = Date.now() - started;
  const events: StepEvent[] = [
    { type: 'action', data: { tool: 'program', input: { code } } },
    {
      type: 'observation',
      data: {
        tool: 'program',
        output: result.ok ? JSON.stringify(result.value) : `${result.error.kind}: ${result.error.message}`,
        ms,
        ...(result.ok ? {} : { error: true }),
        detail: { hostCalls: result.hostCalls, logs: result.logs, ...(result.ok ? {} : { error: result.error }) },
      },
    },
  ];
  const outcome = judge(result);
  return finishAttempt(state, ctx, input, { ...outcome, read: claimReads(reads, result.hostCalls, input, (cell) => linksOf(cell, input)) }, events);
};

const judge = (result: RunProgramResult): { ok: boolean; answer?: string; error?: string } => {
  if (!result.ok) {
    const e = result.error;
    return { ok: false, error: [`${e.kind}: ${e.message}`, e.stack ? `Trace:\n${e.stack}` : ''].filter(Boolean).join('\n') };
  }
  if (isEmptyAnswer(result.value)) {
    const notes = result.hostCalls
      .filter((c) => typeof c.result === 'string' && /not available/i.test(c.result))
      .map((c) => `${c.fn}(${JSON.stringify(c.args).slice(1, -1)}) returned "${String(c.result)}"`);
    return {
      ok: false,
      error: [`The program returned ${JSON.stringify(result.value)}, which answers nothing.`, ...notes].join('\n'),
    };
  }
  return { ok: true, answer: formatAnswer(result.value) };
};

/** After an attempt: answer, refine, or give up with what there is. */
const finishAttempt = (
  state: ProgramState,
  ctx: RunContext<ProgramOptions>,
  input: ProgramContext,
  outcome: { ok: boolean; answer?: string; error?: string; read?: ClaimReads },
  events: StepEvent[],
) => {
  const attempts = [...state.attempts, outcome];
  if (outcome.ok && outcome.answer) {
    return {
      state: { ...state, attempts },
      events: [...events, { type: 'answer' as const, data: tableAnswer(outcome.answer, input, outcome.read) }],
      done: true,
    };
  }
  const failure = (outcome.error ?? 'no answer').slice(0, MAX_FAILURE_CHARS);
  if (state.rounds < ctx.options.refineRounds) {
    return {
      state: { ...state, attempts, failure, phase: 'refine' as const },
      events: [...events, thought(`The attempt gave no usable answer (${failure.split('\n')[0]}); asking for a corrected program.`)],
    };
  }
  // No program produced a value: the run fails and says why, rather than "succeeding" with an empty answer.
  return {
    state: { ...state, attempts, failure },
    events: [
      ...events,
      thought(`No usable answer after ${state.rounds} refinement round(s); giving up.`),
      {
        type: 'error' as const,
        data: { code: 'no_answer', message: `no program produced an answer after ${attempts.length} attempt(s); the last failure: ${failure.split('\n')[0]}` },
      },
    ],
    done: true,
  };
};

/**
 * Program-based prompting over a table with linked passages (HProPro): simplify the question, write a
 * `solve(table)` program, run it in the QuickJS sandbox with `extract_info` and `check` backed by the model,
 * and repair it from its error up to `options.refineRounds` times (2; 1 under `options.recipe: "paper"`). One model call or one sandbox
 * attempt per step.
 */
export const programStrategy: Strategy<ProgramState, ProgramOptions> = {
  mode: 'program',
  options: programOptions,
  description: 'Writes a JavaScript program over the given table (extract_info/check helpers), runs it in a sandbox, refines it on failure.',
  checkContext(context) {
    const parsed = parseProgramContext(context);
    return parsed.ok ? undefined : parsed.message;
  },
  start(ctx) {
    const parsed = parseProgramContext(ctx.request.context);
    const base = { question: ctx.request.question, rounds: 0, attempts: [] };
    if (!parsed.ok) return { ...base, phase: 'invalid', invalid: parsed.message };
    return { ...base, phase: ctx.options.simplify ? 'simplify' : 'generate' };
  },
  async step(state, ctx) {
    if (state.phase === 'invalid') {
      return { state, events: [{ type: 'error', data: { code: 'invalid_context', message: state.invalid ?? 'invalid context' } }], done: true };
    }
    const input = contextOf(ctx);
    switch (state.phase) {
      case 'simplify':
        return simplify(state, ctx, input);
      case 'generate':
        return writeProgram(state, ctx, input, false);
      case 'refine':
        return writeProgram(state, ctx, input, true);
      case 'run':
        return runAttempt(state, ctx, input);
    }
  },
  partial(state) {
    const answered = [...state.attempts].reverse().find((a) => a.ok && a.answer);
    return answered?.answer ? tableAnswer(answered.answer, undefined, answered.read) : null;
  },
};
