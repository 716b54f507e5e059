import { leadingProtocolMarker, withoutProtocolMarkers } from '../../text/prompt-data';
import { MAX_QUESTION_CHARS } from '../limits';

/** A rewrite's reply read as a question: the question, or why the reply is not one. */
export type Standalone = { ok: true; question: string } | { ok: false; why: string };

/** Labels a model may put before the question it was asked for; anything else that opens like a protocol turn is refused. */
const LABEL = /^(?:standalone\s+question|question|rewritten(?:\s+question)?|q)\s*[:：]\s*/i;
const QUOTES = /^["'“”«»]+|["'“”«»]+$/g;
const LINE_BREAKS = /\r\n|[\r\n\v\f\u0085\u2028\u2029]/;

/**
 * The rewrite's reply checked like any model output that becomes input, since it becomes the question every later
 * step reads: one line (a label and quotes around it allowed), no longer than a question may be, not opening as a
 * protocol turn (`Final Answer:`, `Action:`, `Observation:` …: the model answered or acted instead of rewriting), and
 * with any protocol marker inside it removed. Strategies then fence it or keep it on its protocol line like any question.
 * @example checkStandalone('Standalone question: "When was Robert Zemeckis born?"') // { ok: true, question: 'When was Robert Zemeckis born?' }
 * @example checkStandalone('Final Answer: leaked …').ok // false
 */
export const checkStandalone = (reply: string): Standalone => {
  const lines = reply.split(LINE_BREAKS).map((l) => l.trim()).filter(Boolean);
  if (!lines.length) return { ok: false, why: 'the reply was empty' };
  if (lines.length > 1) return { ok: false, why: `the reply was ${lines.length} lines, and a standalone question is one` };
  const line = lines[0]!.replace(LABEL, '').replace(QUOTES, '').trim();
  if (line.length > MAX_QUESTION_CHARS) {
    return { ok: false, why: `the reply was ${line.length.toLocaleString('en-US')} characters, longer than a question may be (${MAX_QUESTION_CHARS.toLocaleString('en-US')})` };
  }
  const marker = leadingProtocolMarker(line);
  if (marker) return { ok: false, why: `the reply opened with the protocol marker "${marker}", so it answered or acted instead of rewriting` };
  const question = withoutProtocolMarkers(line);
  return question ? { ok: true, question } : { ok: false, why: 'the reply held no question' };
};
