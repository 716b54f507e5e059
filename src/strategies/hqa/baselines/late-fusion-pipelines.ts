import { fnv1a } from '../../../embeddings/local';
import { mulberry32 } from '../../../fewshot/prng';
import { I_DONT_KNOW } from '../../../engine/attribution/attribute';
import { claimsOf } from '../claims';
import { answerSources, collectAnswers, mergeFinalAnswer } from '../merge';
import { lateFusionRandomOptions, pipelineOptions } from '../options';
import { createPipelineStrategy, derive, type PipelineTurn, type Stage } from './pipeline';

/**
 * Two pipelines that never see each other: text (wikisearch → read) and graph
 * (wikisearch → getWikidataID → generateQuery → runQuery). Each searches on its own, as a separate system would.
 */
export const lateFusionStages: Stage[] = [
  { branch: 'text', tool: 'wikisearch', input: derive.question, missing: '' },
  { branch: 'text', tool: 'read', input: derive.readInput, missing: 'Text pipeline: the search found no page to read.' },
  { branch: 'graph', tool: 'wikisearch', input: derive.question, missing: '' },
  { branch: 'graph', tool: 'getWikidataID', input: derive.firstTitle, missing: 'Graph pipeline: the search found no page.' },
  { branch: 'graph', tool: 'generateQuery', input: derive.queryInput, missing: 'Graph pipeline: the page has no Wikidata item.' },
  { branch: 'graph', tool: 'runQuery', input: derive.query, missing: 'Graph pipeline: no query was written.' },
];

/** Each pipeline's answer, without the agent or the model's own knowledge. */
const pipelineAnswers = (turns: readonly PipelineTurn[], question: string) => collectAnswers(turns, question);

/** Each pipeline's answer rests on its own branch's records only. */
const branchClaims = (answers: Record<string, string>, turns: readonly PipelineTurn[]) =>
  claimsOf(answers, { text: turns.filter((t) => t.branch === 'text'), graph: turns.filter((t) => t.branch === 'graph') });

/** The fixed-pipeline form of late fusion (no agent); the paper's LLM late fusion is the `late-fusion` mode in hqa/. */
export const lateFusionPipelineStrategy = createPipelineStrategy({
  mode: 'late-fusion-pipeline',
  description: 'Baseline: separate fixed text and graph pipelines (no agent), whose answers one model call merges.',
  options: pipelineOptions,
  stages: lateFusionStages,
  finish: (ctx, turns) => {
    const answers = pipelineAnswers(turns, ctx.request.question);
    const { answerStyle: style, abstain } = ctx.options;
    return mergeFinalAnswer(ctx, { question: ctx.request.question, turns, answers, claims: branchClaims(answers, turns), style, abstain });
  },
});

/**
 * The same two pipelines, but the answer is one of theirs picked at random (seeded by options.seed, default 1),
 * no merge call. When only one pipeline answered, that one is taken: a coin flip between an answer and nothing
 * would measure the pipelines' failure rate rather than fusion.
 */
/** mulberry32's first draw is correlated across small consecutive seeds (1…6 all land above 0.5), so hash first. */
const coin = (seed: number) => mulberry32(fnv1a(`late-fusion-random:${seed}`))();

export const lateFusionRandomStrategy = createPipelineStrategy({
  mode: 'late-fusion-random',
  description: 'Baseline: separate text and graph pipelines; one of their answers is picked at random (seeded).',
  options: lateFusionRandomOptions,
  stages: lateFusionStages,
  finish: async (ctx, turns) => {
    const { seed } = ctx.options;
    const answers = pipelineAnswers(turns, ctx.request.question);
    const candidates = (['wikipedia', 'wikidata'] as const).filter((k) => answers[k]);
    const pick = candidates.length === 2 ? candidates[Math.floor(coin(seed) * 2)] : candidates[0];
    return {
      answer: pick ? answers[pick] : I_DONT_KNOW,
      answers,
      sources: answerSources(turns, answers),
      claims: branchClaims(answers, turns),
    };
  },
});
