import type { Citation, Confidence } from '../engine/types';

/**
 * The sources of an answer as a chat user reads them, appended to the message when the request asks with
 * `cite_sources: true`: each verified citation with its quote and link, or a plain "not verified". A chat UI shows
 * message text and drops unknown fields, so this is the only way its user sees what the answer rests on.
 */

const NAMES: Record<string, string> = { wikipedia: 'Wikipedia', wikidata: 'Wikidata', agent: 'Agent (tools)', table: 'Table', web: 'Web pages', kg: 'Knowledge graph', calculator: 'Calculator' };
const MAX_SHOWN = 5;
const MAX_QUOTE_CHARS = 300;

const clip = (s: string) => (s.length > MAX_QUOTE_CHARS ? `${s.slice(0, MAX_QUOTE_CHARS)}…` : s);
/** One line: a quote may come from a page with newlines, which a chat UI would render as paragraphs. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export const sourcesText = (a: { confidence?: Confidence | string | null; agreementSources?: readonly string[] | null; citations?: readonly Citation[] | null }): string => {
  // Only the sources that back the answer given: a source may be verified for an answer the run did not give.
  const backing = new Set(a.agreementSources ?? []);
  const verified = (a.citations ?? []).filter((c) => c.verified && backing.has(c.source));
  if (!verified.length) {
    return `\n\nSources: not verified — no evidence this run read contains this answer (confidence: ${a.confidence ?? 'none'}).`;
  }
  const lines = verified.slice(0, MAX_SHOWN).map((c, i) => {
    const link = c.url ? ` ${c.url}` : '';
    return `[${i + 1}] ${NAMES[c.source] ?? c.source}: “${clip(oneLine(c.quote ?? ''))}”${link}`;
  });
  const more = verified.length > MAX_SHOWN ? `\n(${verified.length - MAX_SHOWN} more in the run's citations)` : '';
  return `\n\nSources (confidence: ${a.confidence}):\n${lines.join('\n')}${more}`;
};
