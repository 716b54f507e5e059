import { DATA_FENCE_RULE, defuseProtocol, fence, oneLine } from '../../engine/prompt-data';
import { recipeOf } from '../../engine/recipe';
import { CONTEXT_TABLE, contextPassageKey } from '../../engine/attribution/context-documents';
import type { AnswerDraft, RunContext, StepEvent, Strategy } from '../../engine/types';
import { runProgram } from '../../sandbox';
import type { Json, RunProgramResult } from '../../sandbox/types';
import { formatAnswer, isEmptyAnswer } from './answer';
import { rankBm25 } from '../../web/bm25';
import { extractCode } from './extract-code';
import { programExamples } from './fewshot';
import { hostFunctionsFor } from './host-functions';
import { linearise, parseProgramContext, toSandboxTable, type ProgramContext } from './input';
import type { SandboxTable } from './sandbox-table';
import codePaperPrompt from './prompts/code-paper.txt';
import codePrompt from './prompts/code.txt';
import refinePaperPrompt from './prompts/refine-paper.txt';
import refinePrompt from './prompts/refine.txt';
import simplifyPaperPrompt from './prompts/simplify-paper.txt';
import simplifyPrompt from './prompts/simplify.txt';
import { retrieveSentences } from './sentence-retriever';

type Phase = 'invalid' | 'simplify' | 'generate' | 'run' | 'refine';

interface Attempt {
  ok: boolean;
  answer?: string;
  error?: string;
}

export interface ProgramState {
  phase: Phase;
  /** Why the input was refused (phase `invalid`). */
  invalid?: string;
  /** The question the program is written for: the simplified one once simplification ran. */
  question: string;
  code?: string;
  /** What went wrong in the last attempt, shown to the refine prompt. */
  failure?: string;
  /** Refinement rounds used so far. */
  rounds: number;
  attempts: Attempt[];
}

/** Ours repairs twice; the paper refines once. */
const REFINE_ROUNDS = { ours: 2, paper: 1 } as const;
/** Worked examples in the code prompt: our six; the authors' runs used four. */
const EXAMPLES = { ours: 6, paper: 4 } as const;
const SIMPLIFY_PASSAGES = 3;
const MAX_FAILURE_CHARS = 2_500;

const options = (ctx: RunContext) => {
  const o = ctx.request.options ?? {};
  const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback);
  const recipe = recipeOf(o);
  return {
    recipe,
    refineRounds: num(o.refineRounds, REFINE_ROUNDS[recipe]),
    examples: num(o.fewshot, EXAMPLES[recipe]),
    simplify: o.simplify !== false,
  };
};

const thought = (text: string): StepEvent => ({ type: 'thought', data: { text } });

/** Every step re-reads the request's context: the state stays small and the table is never stored twice. */
const contextOf = (ctx: RunContext): ProgramContext => {
  const parsed = parseProgramContext(ctx.request.context);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

/**
 * The program's answer rests on the table and its linked passages; the engine verifies it there (a computed value
 * that no cell or passage holds stays unverified, however cleanly the program ran).
 */
const tableAnswer = (value: string, input: ProgramContext | undefined): AnswerDraft => ({
  answer: value,
  answers: { table: value },
  sources: [{ title: input?.table.title || 'table', kind: 'table' }],
  claims: [{ source: 'table', answer: value, keys: [CONTEXT_TABLE, ...Object.keys(input?.passages ?? {}).map(contextPassageKey)] }],
});

// The paper asks for a description of the solution before the code, in the same reply.
const DESCRIBE_FIRST =
  'First describe your solution in a few sentences to make your plan clear, then write `function solve(table)` in one ```javascript code block.';

const codeMessages = (table: SandboxTable, input: ProgramContext, question: string, examples: number, recipe: 'paper' | 'ours', variant: string) => {
  const shots = programExamples(examples, variant);
  const listing = linearise(table, input.passages, input.images ?? {});
  return [
    { role: 'system' as const, content: `${(recipe === 'paper' ? codePaperPrompt : codePrompt).trim()}\n\n${DATA_FENCE_RULE}` },
    {
      role: 'user' as const,
      content: [
        shots.length ? `Worked examples:\n\n${shots.join('\n\n---\n\n')}\n\n---\n` : '',
        // The table and its passages come from the caller: fenced as data. The question keeps the examples' one-line
        // form, which nothing in it can break out of.
        `Now the real task.\n${fence('TABLE', listing)}\nQuestion: ${oneLine(question)}`,
        recipe === 'paper' ? `\n${DESCRIBE_FIRST}` : '',
      ].join('\n'),
    },
  ];
};

const simplify = (state: ProgramState, ctx: RunContext, input: ProgramContext) =>
  options(ctx).recipe === 'paper' ? simplifyBySentences(state, ctx, input) : simplifyByPassages(state, ctx, input);

/** Takes a rewrite only when it is one plausible question (not empty, not an essay). */
const rewrittenQuestion = (reply: string, original: string) => {
  const rewritten = reply.trim().split('\n')[0].replace(/^(rewritten |simplified )?question\s*:\s*/i, '').trim();
  const usable = rewritten && rewritten.length <= original.length * 3 + 40;
  return usable && rewritten !== original ? rewritten : undefined;
};

/** Both ways of step (a) end alike: the model's rewrite (if it is one) becomes the question, and a thought says so. */
const withSimplified = (state: ProgramState, replyText: string, say: (rewritten: string | undefined) => string) => {
  const rewritten = rewrittenQuestion(replyText, state.question);
  return { state: { ...state, phase: 'generate' as const, question: rewritten ?? state.question }, events: [thought(say(rewritten))] };
};

/**
 * Step (a), the paper's way: sentences of the linked passages that match the question (TF-IDF n-grams and shared
 * substring) become "cell: sentence" knowledge, and the model substitutes it into the question. No match, no call.
 */
const simplifyBySentences = async (state: ProgramState, ctx: RunContext, input: ProgramContext) => {
  const knowledge = retrieveSentences(state.question, input);
  if (!knowledge.length) {
    return { state: { ...state, phase: 'generate' as const }, events: [thought('No passage sentence matches the question; it stays as it is.')] };
  }
  const reply = await ctx.llm.chat({
    purpose: 'simplify',
    messages: [{ role: 'user', content: simplifyPaperPrompt.replace('{{question}}', () => oneLine(state.question)).replace('{{knowledge}}', () => defuseProtocol(knowledge.join('\n'))).trim() }],
    maxTokens: 128,
    temperature: 0,
  });
  return withSimplified(state, reply.text, (rewritten) =>
    rewritten
      ? `Substituted what the passages say into the question (${knowledge.length} matching sentence(s)): "${rewritten}"`
      : 'The matching passage sentences did not change the question.',
  );
};

// The words that never count when matching a question to the linked passages ("how many", "this" included).
const PASSAGE_STOPWORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were which who what when where with how many much did does do'.split(' '),
);

/** Step (a), ours: retrieve the passages closest to the question (BM25) and let the model name the cells it describes. */
const simplifyByPassages = async (state: ProgramState, ctx: RunContext, input: ProgramContext) => {
  const owners = new Map<string, string>();
  input.table.rows.forEach((cells, r) =>
    cells.forEach((c, j) => c.links?.forEach((l) => owners.has(l) || owners.set(l, `row ${r}, column "${input.table.columns[j] ?? j}": ${c.text}`))),
  );
  const docs = Object.entries(input.passages).map(([key, text]) => ({ key, text }));
  const top = rankBm25(state.question, docs, { stopwords: PASSAGE_STOPWORDS }).slice(0, SIMPLIFY_PASSAGES);
  if (!top.length) {
    return { state: { ...state, phase: 'generate' as const }, events: [thought('No linked passage matches the question; it stays as it is.')] };
  }
  const evidence = top
    .map((t) => `Cell (${owners.get(t.key) ?? 'not in the table'})\nPassage: ${input.passages[t.key].slice(0, 1200)}`)
    .join('\n\n');
  const reply = await ctx.llm.chat({
    purpose: 'simplify',
    messages: [
      { role: 'system', content: `${simplifyPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
      {
        role: 'user',
        content: `Table columns: ${oneLine(input.table.columns.join(' | '))}\n\n${fence('PASSAGES', evidence)}\n\n${fence('QUESTION', state.question)}`,
      },
    ],
    maxTokens: 128,
    temperature: 0,
  });
  return withSimplified(state, reply.text, (rewritten) =>
    rewritten
      ? `Simplified the question using the passages most related to it (${top.map((t) => t.key).join(', ')}): "${rewritten}"`
      : 'Looked for descriptions in the question that name a table cell; none needed rewriting.',
  );
};

/** Step (b) and (d): one model call that yields a `solve` program. */
const writeProgram = async (state: ProgramState, ctx: RunContext, input: ProgramContext, refine: boolean) => {
  const table = toSandboxTable(input);
  const { recipe, examples } = options(ctx);
  const messages = !refine
    ? codeMessages(table, input, state.question, examples, recipe, ctx.request.variant)
    : recipe === 'paper'
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
  const reply = await ctx.llm.chat({ purpose: refine ? 'refine' : 'code', messages, maxTokens: 1024, temperature: 0 });
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
const runAttempt = async (state: ProgramState, ctx: RunContext, input: ProgramContext) => {
  const code = state.code ?? '';
  const started = Date.now();
  const result = await runProgram({
    code,
    entry: 'solve',
    args: [toSandboxTable(input) as unknown as Json],
    hostFunctions: hostFunctionsFor(ctx, input),
    caps: { workUnits: ctx.config.SANDBOX_WORK_UNITS },
  });
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
  return finishAttempt(state, ctx, input, outcome, events);
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
  ctx: RunContext,
  input: ProgramContext,
  outcome: { ok: boolean; answer?: string; error?: string },
  events: StepEvent[],
) => {
  const attempts = [...state.attempts, outcome];
  if (outcome.ok && outcome.answer) {
    return {
      state: { ...state, attempts },
      events: [...events, { type: 'answer' as const, data: tableAnswer(outcome.answer, input) }],
      done: true,
    };
  }
  const failure = (outcome.error ?? 'no answer').slice(0, MAX_FAILURE_CHARS);
  if (state.rounds < options(ctx).refineRounds) {
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
export const programStrategy: Strategy<ProgramState> = {
  mode: 'program',
  description: 'Writes a JavaScript program over the given table (extract_info/check helpers), runs it in a sandbox, refines it on failure.',
  checkContext(context) {
    const parsed = parseProgramContext(context);
    return parsed.ok ? undefined : parsed.message;
  },
  start(ctx) {
    const parsed = parseProgramContext(ctx.request.context);
    const base = { question: ctx.request.question, rounds: 0, attempts: [] };
    if (!parsed.ok) return { ...base, phase: 'invalid', invalid: parsed.message };
    return { ...base, phase: options(ctx).simplify ? 'simplify' : 'generate' };
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
    return answered?.answer ? tableAnswer(answered.answer, undefined) : null;
  },
};
