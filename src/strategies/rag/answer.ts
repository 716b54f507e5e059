import type { AnswerDraft, Claim } from '../../engine/types';
import { sameAnswer } from '../../text/answers';
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
 * What the answer rests on: the pages (or Wikipedia records) its references came from, and the knowledge API's
 * responses. The closed-book guess is the model's own knowledge and cites nothing. The engine checks the answer
 * against each record; "I don't know" and "invalid question" claim nothing.
 */
const claimsOf = (answer: string, state: RagState): Claim[] => {
  if (answer === IDK || answer === INVALID) return [];
  const claims: Claim[] = [];
  const pages = [...new Set(state.refs.flatMap((r) => (r.key ? [r.key] : [])))];
  if (pages.length) claims.push({ source: 'web', answer, keys: pages });
  const kg = state.kgResults.flatMap((k) => (k.key ? [k.key] : []));
  if (kg.length) claims.push({ source: 'kg', answer, keys: kg });
  // An answer the calculator computed rests on its operands, which must stand in the pages or the KG responses.
  const calc = state.calculations.find((c) => sameAnswer(c.value, answer));
  const operands = calc?.expression.match(/\d+(?:\.\d+)?/g);
  if (calc && operands) claims.push({ source: 'calculator', answer, keys: [...pages, ...kg], operands: [...new Set(operands)] });
  return claims;
};

/** The final `answer` event: the answer, what each module said, the pages it read and the evidence it cites. */
export const answerEvent = (answer: string, state: RagState, web?: string): { type: 'answer'; data: AnswerDraft } => {
  const answers: Record<string, string> = {};
  if (web !== undefined) answers.web = web;
  if (state.parametric) answers.parametric = state.parametric.answer;
  if (state.kgResults.length) answers.kg = state.kgResults.map((k) => `${k.endpoint}: ${k.result}`).join(' | ').slice(0, 300);
  if (state.calculations.length) answers.calculator = state.calculations[0].value;
  return { type: 'answer', data: { answer, answers, sources: state.sources, claims: claimsOf(answer, state) } };
};
