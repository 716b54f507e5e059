import type { EvalItem } from '../types';
import { goldProgramValue } from './gold-answer';

/** Replies per request purpose for one question (the OpenAI-compatible stub's `byQuestion` entry). */
export type PurposeReplies = Record<string, string[]>;

/** CRAG's own label of how fast a question's answer changes; the two fast kinds are what our predictor calls dynamic. */
const isDynamic = (item: EvalItem) => /^(real-time|fast-changing)$/i.test(item.attributes?.static_or_dynamic ?? '');

/** The question as one line of search keywords, within wikisearch's 300 characters. */
const searchFor = (question: string) => question.replace(/\s+/g, ' ').trim().slice(0, 280);

/**
 * What a model that knows the gold answer replies at the step where each mode writes its answer:
 * agent — one `wikisearch` for the question (so the answer has evidence to be checked against: the verified-citation
 * rate says how often the search hits hold it), then the `Final Answer:` turn, the closed-book guess and the final merge;
 * program — the question left as it is by simplification, then a `solve` that returns the gold value;
 * rag — the attribute predictor (CRAG's own static/dynamic label), the closed-book guess and the reasoning format.
 */
export const goldReplies = (item: EvalItem, mode: string, gold: string): PurposeReplies => {
  switch (mode) {
    case 'program': {
      const code = `\`\`\`javascript\nfunction solve(table) {\n  return ${JSON.stringify(goldProgramValue(item, gold))};\n}\n\`\`\``;
      // Simplification returns the question unchanged, so the code prompt still carries it word for word.
      return { simplify: [item.question], code: [code], refine: [code] };
    }
    case 'rag':
      return {
        attribute: [`Dynamism: ${isDynamic(item) ? 'dynamic' : 'static'}\nDomain: ${item.category ?? 'open'}`],
        parametric: [gold],
        reasoning: [`<reasoning>The references answer it.</reasoning>\n<answer>${gold}</answer>\n<false_premise>no</false_premise>`],
        summarize: [gold],
      };
    default:
      return {
        agent: [` I look it up first.\nAction: wikisearch\nAction Input: ${searchFor(item.question)}`, ` I know the answer.\nFinal Answer: ${gold}`],
        parametric: [gold],
        final: [gold],
      };
  }
};
