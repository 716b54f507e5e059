import { defuseProtocol, fence, oneLine } from '../../text/prompt-data';
import type { RagState, Reference } from './state';

/**
 * A page could close our wrapper, or write the reply format's own tags and labels (`<answer>…</answer>`,
 * `<false_premise>yes</false_premise>`, `Answer: …`) for the model to echo: its text goes through the same
 * neutralising as every fenced block (src/text/prompt-data.ts), and attributes stay on one line without quotes.
 */
const attr = (text: string) => oneLine(text).replace(/["<>]/g, ' ').slice(0, 200);

/** The references as clearly delimited data blocks for a prompt. */
export const formatReferences = (refs: Reference[]): string => {
  if (refs.length === 0) return '<references>\n(none)\n</references>';
  const body = refs
    .map((r, i) => `<ref id="${i + 1}" kind="${r.kind}" title="${attr(r.title)}"${r.url ? ` url="${attr(r.url)}"` : ''}>\n${defuseProtocol(r.text)}\n</ref>`)
    .join('\n');
  return `<references>\n${body}\n</references>`;
};

/** Everything the reasoning step weighs, in one user message. */
export const reasoningInput = (question: string, queryTime: string | undefined, state: RagState): string => {
  const parts = [fence('QUESTION', question), `Query time: ${oneLine(queryTime ?? 'unknown')}`, formatReferences(state.refs)];
  if (state.pageNotes?.length) {
    parts.push(`Notes on the pages (the evidence from these pages is partial):\n${state.pageNotes.map((n) => `- ${oneLine(n)}`).join('\n')}`);
  }
  if (state.kgResults.length) {
    parts.push(formatReferences(state.kgResults.map((k) => ({ kind: 'kg', title: k.endpoint, text: k.result }))).replace('<references>', '<references source="knowledge API">'));
  }
  if (state.calculations.length) {
    parts.push(`Computed values (evaluated exactly):\n${state.calculations.map((c) => `${oneLine(c.expression)} = ${oneLine(String(c.value))}`).join('\n')}`);
  }
  if (state.parametric) {
    parts.push(`Closed-book guess of a language model (may be outdated or wrong): ${oneLine(state.parametric.answer)}` +
      (state.parametric.falsePremise ? ' (it suspects a false premise)' : ''));
  }
  return parts.join('\n\n');
};
