import type { Citation, Confidence } from '../engine/types';

/**
 * The sources of an answer as a chat user reads them, appended to the message when the request asks with
 * `cite_sources: true`: each supporting citation with its quote and link, then those that only mention the answer,
 * said as such, or a plain "not verified". A chat UI shows message text and drops unknown fields, so this is the only
 * way its user sees what the answer rests on.
 */

const NAMES: Record<string, string> = { wikipedia: 'Wikipedia', wikidata: 'Wikidata', agent: 'Agent (tools)', table: 'Table', web: 'Web pages', kg: 'Knowledge graph', calculator: 'Calculator' };
const MAX_SHOWN = 5;
const MAX_QUOTE_CHARS = 300;

const clip = (s: string) => (s.length > MAX_QUOTE_CHARS ? `${s.slice(0, MAX_QUOTE_CHARS)}…` : s);
/** One line: a quote may come from a page with newlines, which a chat UI would render as paragraphs. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

const line = (c: Citation, i: number, suffix = '') => `[${i + 1}] ${NAMES[c.source] ?? c.source}: “${clip(oneLine(c.quote ?? ''))}”${c.url ? ` ${c.url}` : ''}${suffix}`;

export const sourcesText = (a: { confidence?: Confidence | string | null; agreementSources?: readonly string[] | null; citations?: readonly Citation[] | null }): string => {
  // Only the sources that back the answer given: a source may be verified for an answer the run did not give.
  const backing = new Set(a.agreementSources ?? []);
  const supporting = (a.citations ?? []).filter((c) => c.verified && backing.has(c.source) && c.support !== 'mentions');
  // Citations whose record holds the answer without saying it of what was asked: shown, and said to be no support.
  const mentioning = (a.citations ?? []).filter((c) => c.verified && c.support === 'mentions' && !supporting.some((s) => s.quote === c.quote));
  if (!supporting.length) {
    if (!mentioning.length) return `\n\nSources: not verified — no evidence this run read contains this answer (confidence: ${a.confidence ?? 'none'}).`;
    const lines = mentioning.slice(0, MAX_SHOWN).map((c, i) => line(c, i, ' (mentions the answer only)'));
    return `\n\nSources: not supported — the evidence this run read mentions this answer but does not say it of what was asked (confidence: ${a.confidence ?? 'none'}):\n${lines.join('\n')}`;
  }
  const lines = supporting.slice(0, MAX_SHOWN).map((c, i) => line(c, i));
  const more = supporting.length > MAX_SHOWN ? `\n(${supporting.length - MAX_SHOWN} more in the run's citations)` : '';
  return `\n\nSources (confidence: ${a.confidence}):\n${lines.join('\n')}${more}`;
};
