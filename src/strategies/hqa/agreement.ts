import type { Confidence } from '../../engine/types';
import { isNonAnswer, sameAnswer } from './normalise';
import type { Turn } from './trace';

/** Tools whose observations come from Wikipedia or Wikidata (generateQuery only shows what the model wrote). */
const EVIDENCE_TOOLS = new Set(['wikisearch', 'read', 'getWikidataID', 'runQuery', 'getLabel']);
const NOTHING_FOUND = /^(error\b|no results?\b|no wikipedia page matched|there is no page titled|the page .* has no text|the page does not say)/i;
const NOTHING_FOUND_LINE = /: no (wikidata item|label) found\b/i;

/** Whether an observation carries evidence: the tool reached the source and found something. */
const foundSomething = (t: Turn): boolean => {
  if (!t.tool || !EVIDENCE_TOOLS.has(t.tool) || t.error || !t.observation) return false;
  const lines = t.observation.split('\n').map((l) => l.trim()).filter((l) => l && !NOTHING_FOUND_LINE.test(l));
  return lines.length > 0 && !NOTHING_FOUND.test(lines[0]);
};

/** Whether any step of the trace observed evidence (so the agent's answer rests on something it read). */
export const sawEvidence = (turns: readonly Turn[]): boolean => turns.some(foundSomething);

/**
 * The sources whose agreement sets the confidence: only answers read from evidence. Wikipedia's and Wikidata's
 * answers count; the model's own knowledge (parametric) never does, since a model agreeing with itself proves
 * nothing. The agent's final answer is derived from the evidence answers when they exist (it would count them
 * twice); it stands in for the evidence only when the trace observed evidence but yielded neither answer
 * (the agent answered from search snippets). Without `turns` the agent's answer never counts.
 */
export const votingAnswers = (answers: Record<string, string | undefined>, turns: readonly Turn[] = []): [string, string][] => {
  const evidence = (['wikipedia', 'wikidata'] as const).filter((k) => !isNonAnswer(answers[k]));
  const keys: string[] = evidence.length ? evidence : sawEvidence(turns) ? ['agent'] : [];
  return keys.filter((k) => !isNonAnswer(answers[k])).map((k) => [k, answers[k] as string]);
};

/**
 * Agreement of the evidence sources (see votingAnswers):
 * none: no source answered from evidence · one_source: exactly one did · all_agree: every one agrees (two or more) ·
 * two_agree: at least two agree and another differs · conflict: no two agree.
 * @example agreementOf({ wikipedia: 'Chicago', wikidata: 'Chicago', parametric: 'Los Angeles' }) // 'all_agree'
 * @example agreementOf({ agent: 'Chicago', parametric: 'Chicago' }) // 'none': neither answer came from evidence
 */
export const agreementOf = (answers: Record<string, string | undefined>, turns: readonly Turn[] = []): Confidence => {
  const voting = votingAnswers(answers, turns).map(([, a]) => a);
  if (voting.length === 0) return 'none';
  if (voting.length === 1) return 'one_source';
  let pairs = 0;
  let agreeing = 0;
  for (let i = 0; i < voting.length; i++) {
    for (let j = i + 1; j < voting.length; j++) {
      pairs++;
      if (sameAnswer(voting[i], voting[j])) agreeing++;
    }
  }
  if (agreeing === pairs) return 'all_agree';
  return agreeing > 0 ? 'two_agree' : 'conflict';
};

/** Whether an abstaining run should say "I don't know". */
export const isLowConfidence = (c: Confidence): boolean => c === 'conflict' || c === 'none';
