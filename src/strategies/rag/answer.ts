import type { AnswerData, Confidence, EventInput } from '../../engine/types';
import type { RagState } from './state';

export const IDK = "I don't know";
export const INVALID = 'invalid question';

/** The scoring rules want exact strings: any "I don't know" is the canonical one, a false premise is "invalid question". */
export const normalizeAnswer = (answer: string, falsePremise: boolean): string => {
  if (falsePremise) return INVALID;
  const a = answer.trim().replace(/^["'`]+|["'`]+$/g, '').trim();
  if (!a || /\bi\s*(?:do\s*not|don'?t|dont)\s*know\b/i.test(a)) return IDK;
  if (/^invalid question\.?$/i.test(a)) return INVALID;
  return a;
};

/**
 * Agreement counts only what answered from evidence (pages, tables, the KG API). The closed-book guess is the
 * model's own knowledge: the reasoning step agreeing with it proves nothing, so it is reported in `answers` but
 * never raises (or lowers) the confidence. With no evidence at all the answer rests on the model alone: `none`.
 */
const evidenceKeys = (state: RagState, answers: Record<string, string>): string[] =>
  state.refs.length || state.kgResults.length ? ['web', 'kg'].filter((k) => k in answers) : [];

const confidenceOf = (answer: string, keys: string[]): Confidence => (answer === IDK || keys.length === 0 ? 'none' : 'one_source');

/** The final `answer` event: the answer, what each module said, and the pages it read. */
export const answerEvent = (answer: string, state: RagState, web?: string): EventInput & { type: 'answer' } => {
  const answers: Record<string, string> = {};
  if (web !== undefined) answers.web = web;
  if (state.parametric) answers.parametric = state.parametric.answer;
  if (state.kgResults.length) answers.kg = state.kgResults.map((k) => `${k.endpoint}: ${k.result}`).join(' | ').slice(0, 300);
  if (state.calculations.length) answers.calculator = state.calculations[0].value;
  const keys = answer === IDK ? [] : evidenceKeys(state, answers);
  const data: AnswerData = { answer, answers, sources: state.sources, confidence: confidenceOf(answer, keys), agreementSources: keys };
  return { type: 'answer', data };
};
