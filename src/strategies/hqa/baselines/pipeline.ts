import type { ModeOptions, RunOptions } from '../../../engine/options';
import type { AnswerDraft, RunContext, StepEvent, Strategy } from '../../../engine/types';
import { traceClaims } from '../claims';
import { answerSources, bestAvailable, collectAnswers } from '../merge';
import type { Turn } from '../trace';

/**
 * Fixed tool pipelines (the non-agent baselines): the tools run in a set order, each input derived from the
 * question and earlier observations of the same branch, one tool call per step; then one closing step.
 * When an input cannot be derived (no search hit, no id), the rest of that branch is skipped and a thought says why.
 */
export interface PipelineTurn extends Turn {
  branch: string;
}

export interface Stage {
  branch: string;
  tool: string;
  /** The tool input from the question and this branch's earlier turns; undefined stops the branch. */
  input(question: string, earlier: readonly PipelineTurn[]): string | undefined;
  /** Said when the input cannot be derived. */
  missing: string;
}

export interface PipelineState {
  question: string;
  next: number;
  turns: PipelineTurn[];
  stopped: string[];
}

/** Closes the run from the turns; the only step that may call a model besides the tools. */
export type Finish<O extends RunOptions> = (ctx: RunContext<O>, turns: readonly PipelineTurn[]) => Promise<AnswerDraft>;

const okTurn = (earlier: readonly PipelineTurn[], tool: string) =>
  [...earlier].reverse().find((t) => t.tool === tool && !t.error && t.observation);

/** Input derivations shared by the pipelines. */
export const derive = {
  question: (q: string) => q,
  firstTitle: (_q: string, earlier: readonly PipelineTurn[]) => /^1\. (.+?) — /m.exec(okTurn(earlier, 'wikisearch')?.observation ?? '')?.[1],
  readInput: (q: string, earlier: readonly PipelineTurn[]) => {
    const title = derive.firstTitle(q, earlier);
    return title ? `${title} # ${q}` : undefined;
  },
  qid: (_q: string, earlier: readonly PipelineTurn[]) => /: (Q\d+)$/m.exec(okTurn(earlier, 'getWikidataID')?.observation ?? '')?.[1],
  queryInput: (q: string, earlier: readonly PipelineTurn[]) => {
    const id = derive.qid(q, earlier);
    return id ? `${q} # ${id}` : undefined;
  },
  query: (_q: string, earlier: readonly PipelineTurn[]) => {
    const out = okTurn(earlier, 'generateQuery')?.observation;
    return out && !/^The model wrote no query/.test(out) ? out.replace(/\n\n\(Note: [\s\S]*$/, '') : undefined;
  },
  /** Ids in the query result, else the item the branch started from. */
  resultIds: (q: string, earlier: readonly PipelineTurn[]) => {
    const ids = [...new Set((okTurn(earlier, 'runQuery')?.observation ?? '').match(/\b[QP]\d+\b/g) ?? [])].slice(0, 25);
    return ids.length ? ids.join(', ') : derive.qid(q, earlier);
  },
};

export const createPipelineStrategy = <O extends RunOptions>(opts: {
  mode: string;
  description: string;
  options: ModeOptions<O>;
  stages: readonly Stage[];
  finish: Finish<O>;
}): Strategy<PipelineState, O> => ({
  mode: opts.mode,
  description: opts.description,
  options: opts.options,
  start: (ctx) => ({ question: ctx.request.question, next: 0, turns: [], stopped: [] }),
  async step(state, ctx) {
    const question = ctx.request.question;
    const events: StepEvent[] = [];
    let next = state.next;
    const stopped = [...state.stopped];
    while (next < opts.stages.length) {
      const stage = opts.stages[next];
      next++;
      if (stopped.includes(stage.branch)) continue;
      const earlier = state.turns.filter((t) => t.branch === stage.branch);
      const input = stage.input(question, earlier);
      if (input === undefined) {
        stopped.push(stage.branch);
        events.push({ type: 'thought', data: { text: stage.missing } });
        continue;
      }
      const result = await ctx.runTool(stage.tool, input);
      const turn: PipelineTurn = { branch: stage.branch, tool: stage.tool, input, observation: result.output, error: result.error, records: result.records };
      events.push(
        { type: 'action', data: { tool: stage.tool, input } },
        { type: 'observation', data: { tool: stage.tool, output: result.output, ms: result.ms, error: result.error } },
      );
      return { state: { ...state, next, turns: [...state.turns, turn], stopped }, events };
    }
    const answer = await opts.finish(ctx, state.turns);
    return { state: { ...state, next, stopped }, done: true, events: [...events, { type: 'answer', data: answer }] };
  },
  partial(state) {
    const answers = collectAnswers(state.turns, state.question);
    return { answer: bestAvailable(answers), answers, sources: answerSources(state.turns, answers), claims: traceClaims(answers, state.turns) };
  },
});
