import { fence, oneLine } from '../../engine/prompt-data';
import type { RagState, Reference } from './state';

// A page could close our wrapper and write its own "instructions" after it; neutralise the markers.
const escapeData = (text: string) => text.replace(/<\s*\/?\s*(ref|references)\b/gi, (m) => m.replace('<', '‹'));
const attr = (text: string) => text.replace(/["<>\n]/g, ' ').slice(0, 200);

/** The references as clearly delimited data blocks for a prompt. */
export const formatReferences = (refs: Reference[]): string => {
  if (refs.length === 0) return '<references>\n(none)\n</references>';
  const body = refs
    .map((r, i) => `<ref id="${i + 1}" kind="${r.kind}" title="${attr(r.title)}"${r.url ? ` url="${attr(r.url)}"` : ''}>\n${escapeData(r.text)}\n</ref>`)
    .join('\n');
  return `<references>\n${body}\n</references>`;
};

/** Everything the reasoning step weighs, in one user message. */
export const reasoningInput = (question: string, queryTime: string | undefined, state: RagState): string => {
  const parts = [fence('QUESTION', question), `Query time: ${oneLine(queryTime ?? 'unknown')}`, formatReferences(state.refs)];
  if (state.pageNotes?.length) {
    parts.push(`Notes on the pages (the evidence from these pages is partial):\n${state.pageNotes.map((n) => `- ${escapeData(n)}`).join('\n')}`);
  }
  if (state.kgResults.length) {
    parts.push(formatReferences(state.kgResults.map((k) => ({ kind: 'kg', title: k.endpoint, text: k.result }))).replace('<references>', '<references source="knowledge API">'));
  }
  if (state.calculations.length) {
    parts.push(`Computed values (evaluated exactly):\n${state.calculations.map((c) => `${c.expression} = ${c.value}`).join('\n')}`);
  }
  if (state.parametric) {
    parts.push(`Closed-book guess of a language model (may be outdated or wrong): ${state.parametric.answer}` +
      (state.parametric.falsePremise ? ' (it suspects a false premise)' : ''));
  }
  return parts.join('\n\n');
};
