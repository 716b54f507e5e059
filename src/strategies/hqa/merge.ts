import * as z from 'zod';
import { I_DONT_KNOW, modelKnowledgeSource, shouldAbstain } from '../../engine/attribution/attribute';
import { structuredCall } from '../../engine/structured-step';
import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import type { AnswerDraft, Claim, RunContext, Source } from '../../engine/types';
import type { ChatMessage } from '../../llm/types';
import { isNonAnswer } from '../../text/answers';
import { renderTrajectory } from './prompt';
import finalLong from './prompts/final-long.txt';
import finalPaper from './prompts/final-paper.txt';
import finalShort from './prompts/final-short.txt';
import type { Recipe } from '../../engine/recipe';
import { AGENT_RECIPES } from './recipes';
import { agentAnswer, declaredAnswers, sourcesOf, wikidataAnswer, wikipediaAnswer, type Turn } from './trace';

export type AnswerStyle = 'short' | 'long';

/** Characters of the trace shown to the merge call as context. */
const EVIDENCE_BUDGET = 6_000;

/** How each source is named in the merge prompt and in a long answer's notes; the model's one name is the engine's. */
export const SOURCE_NAMES: Record<string, string> = {
  wikipedia: 'Wikipedia',
  wikidata: 'Wikidata',
  agent: 'Research assistant',
  parametric: modelKnowledgeSource.title,
};

/**
 * Each source's answer, dropping empty ones. What the agent declared in its final turn comes first; the trace is
 * read only for a source it did not declare (and not at all when `inferFromTrace` is false: the paper recipe).
 * `extra` adds answers not in the trace (parametric).
 */
export const collectAnswers = (
  turns: readonly Turn[],
  question: string,
  extra: Record<string, string | undefined> = {},
  opts: { inferFromTrace?: boolean } = {},
): Record<string, string> => {
  const declared = declaredAnswers(turns) ?? {};
  const infer = opts.inferFromTrace ?? true;
  const all: Record<string, string | undefined> = {
    wikipedia: 'wikipedia' in declared ? declared.wikipedia : infer ? wikipediaAnswer(turns, question) : undefined,
    wikidata: 'wikidata' in declared ? declared.wikidata : infer ? wikidataAnswer(turns) : undefined,
    agent: agentAnswer(turns),
    ...extra,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => !isNonAnswer(v)) as [string, string][]);
};

/** The best answer without a merge call (limits hit, or the merge call failed): the agent's, then the evidence's. */
export const bestAvailable = (answers: Record<string, string>): string =>
  answers.agent ?? answers.wikidata ?? answers.wikipedia ?? answers.parametric ?? I_DONT_KNOW;

/** Sources for an answer: pages and entities from the trace, plus the model's own knowledge when it answered. */
export const answerSources = (turns: readonly Turn[], answers: Record<string, string>): Source[] => [
  ...sourcesOf(turns),
  ...(answers.parametric ? [modelKnowledgeSource] : []),
];

const disagreementNote = (answers: Record<string, string>): string =>
  `Note: the sources disagree. ${Object.entries(answers)
    .filter(([k]) => k !== 'agent')
    .map(([k, v]) => `${SOURCE_NAMES[k] ?? k}: ${v}`)
    .join('; ')}.`;

export const mergeMessages = (input: {
  question: string;
  answers: Record<string, string>;
  confidence: string;
  turns: readonly Turn[];
  style: AnswerStyle;
}): ChatMessage[] => {
  const listed = Object.entries(input.answers).map(([k, v]) => `- ${SOURCE_NAMES[k] ?? k}: ${v}`);
  const trace = renderTrajectory(input.turns.filter((t) => t.tool && !t.error), EVIDENCE_BUDGET);
  return [
    { role: 'system', content: `${(input.style === 'long' ? finalLong : finalShort).trim()}\n\n${DATA_FENCE_RULE}` },
    {
      role: 'user',
      content: [
        fence('QUESTION', input.question),
        `Source answers:\n${listed.length ? listed.join('\n') : '- (none)'}`,
        `Agreement between sources: ${input.confidence}`,
        fence('EVIDENCE', trace || '(no tool was used)', { keepProtocol: true }),
        'Answer:',
      ].join('\n\n'),
    },
  ];
};

const orNone = (v: string | undefined) => (v && v.trim() ? v : 'None');

/**
 * The paper's merge step: the Wikipedia, Wikidata and own-knowledge answers plus the agent's "Assistant Response"
 * paragraph as context; own knowledge counts only when neither source answered. It does not see the trajectory.
 */
export const paperMergeMessages = (input: { question: string; answers: Record<string, string>; context?: string }): ChatMessage[] => [
  { role: 'system', content: `${finalPaper.trim()}\n\n${DATA_FENCE_RULE}` },
  {
    role: 'user',
    content: [
      `Question: ${oneLine(input.question)}`,
      `Wikipedia Answer: ${orNone(input.answers.wikipedia)}`,
      `Wikidata Answer: ${orNone(input.answers.wikidata)}`,
      `Internal Knowledge: ${orNone(input.answers.parametric)}`,
      `Context:\n${fence('EVIDENCE', input.context?.trim() || 'None')}`,
      'Answer:',
    ].join('\n'),
  },
];

const stripLabel = (text: string) => text.trim().replace(/^(\*\*)?(final answer|answer)\s*:\s*(\*\*)?\s*/i, '').trim();

/** The merge's reply: its answer, as a JSON object under the native protocol, as the reply's text otherwise. */
const MERGE_REPLY = {
  name: 'final_answer',
  schema: z.object({ answer: z.string().meta({ description: 'the answer, in the form the instructions ask for' }) }),
  fromText: (text: string) => ({ answer: stripLabel(text) }),
};

/**
 * Final response generation: one `final` call over the source answers and the trace, unless the run abstains.
 * The agreement shown to the model and the hedge come from the engine's verification of `claims`, never from the
 * model; on conflict a long answer carries an explicit note listing each source's answer, so the hedge does not
 * depend on the model obeying the prompt.
 */
export const mergeFinalAnswer = async (
  ctx: RunContext,
  input: {
    question: string;
    turns: readonly Turn[];
    answers: Record<string, string>;
    /** What each source's answer rests on (claims.ts); the engine verifies them. */
    claims: Claim[];
    style: AnswerStyle;
    abstain: boolean;
    /** The agent's recipe (a baseline has none): the published merge prompt for short answers where it says so; long answers keep ours, the paper has no such step. */
    recipe?: Recipe;
    /** The agent's "Assistant Response", which the paper's merge reads as context. */
    context?: string;
  },
): Promise<AnswerDraft> => {
  const { answers, turns, style, claims } = input;
  const { confidence } = ctx.attribute(claims);
  const sources = answerSources(turns, answers);
  // The engine would turn any answer into "I don't know" here: the merge call is not worth making.
  if (input.abstain && shouldAbstain(confidence)) return { answer: I_DONT_KNOW, answers, sources, claims };
  const reply = await structuredCall(ctx, {
    purpose: 'final',
    messages:
      input.recipe && AGENT_RECIPES[input.recipe].mergeReadsResponse && style === 'short'
        ? paperMergeMessages({ question: input.question, answers, context: input.context })
        : mergeMessages({ question: input.question, answers, confidence, turns, style }),
    maxTokens: style === 'long' ? 400 : 120,
  }, MERGE_REPLY, { answer: true });
  let answer = stripLabel(reply.value?.answer ?? '') || bestAvailable(answers);
  if (style === 'long' && confidence === 'conflict') answer = `${answer}\n\n${disagreementNote(answers)}`;
  return { answer, answers, sources, claims };
};
