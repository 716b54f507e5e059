import type { AnswerDraft, Claim, RunContext, StepEvent } from '../../engine/types';
import type { Recipe } from '../../engine/recipe';
import { AGENT_RECIPES } from './recipes';
import { sameAnswer } from '../../text/answers';
import { answerSources, SOURCE_NAMES, type AnswerStyle } from './merge';
import type { Turn } from './trace';

/**
 * The answer when the merge call has nothing to decide: two or more sources answered from evidence the engine
 * verified, and they agree. The merge would only restate their answer, so ours writes it without a model call and
 * says so in the trace; the paper's recipe (and a baseline, which passes no recipe) keeps its call.
 */
export const agreedAnswer = (
  ctx: RunContext,
  input: { turns: readonly Turn[]; answers: Record<string, string>; claims: Claim[]; style: AnswerStyle; recipe?: Recipe },
): { draft: AnswerDraft; events: StepEvent[] } | undefined => {
  if (!input.recipe || !AGENT_RECIPES[input.recipe].skipMergeWhenAgreed) return undefined;
  const { confidence, agreementSources } = ctx.attribute(input.claims);
  if (confidence !== 'all_agree') return undefined;
  const { answers } = input;
  const agreed = agreementSources.map((s) => answers[s]).filter(Boolean);
  if (agreed.length < 2) return undefined;
  // The shortest wording of the agreed answer is the one a short answer wants ("Chicago", not the sentence read from
  // the page); the agent's own answer wins when it says the same thing.
  const shortest = agreed.reduce((a, b) => (b.length < a.length ? b : a));
  const short = answers.agent && sameAnswer(answers.agent, shortest) && answers.agent.length <= shortest.length * 2 ? answers.agent : shortest;
  const names = agreementSources.map((s) => SOURCE_NAMES[s] ?? s);
  const listed = agreementSources.map((s) => `${SOURCE_NAMES[s] ?? s}: ${answers[s]}`).join('; ');
  const answer =
    input.style === 'long' ? `${short.replace(/[.\s]+$/, '')}. ${names.join(' and ')} agree on this answer, each in evidence this run read (${listed}).` : short;
  const sources = answerSources(input.turns, answers);
  return {
    draft: { answer, answers, sources, claims: input.claims },
    events: [{ type: 'thought', data: { text: `${names.join(' and ')} agree, verified in the evidence; the merge call is skipped.` } }],
  };
};
