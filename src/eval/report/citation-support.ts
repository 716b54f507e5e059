import type { CitationSupport } from '../metrics/citation-support';
import { formatInterval } from '../stats/bootstrap';
import { escapeHtml } from './escape';

const MAX_SHOWN = 20;
const f1 = (v: number | null) => (v === null ? '–' : v.toFixed(1));

/** The report's citation-support section: the rate with its interval, accuracy by support grade, the mentions to read. */
export const citationSupportHtml = (s: CitationSupport): string => {
  const rows = s.byGrade.map((g) => `<tr><td>${escapeHtml(g.label)}</td><td class="num">${g.n}</td><td class="num">${f1(g.accuracy)}</td></tr>`).join('');
  const mentions = s.mentions
    .slice(0, MAX_SHOWN)
    .map((m) => `<tr><td><code>${escapeHtml(m.id)}</code></td><td>${escapeHtml(m.question)}</td><td>${escapeHtml(m.source)}: ${escapeHtml(m.answer)}</td><td>“${escapeHtml(m.quote)}”</td></tr>`)
    .join('');
  const rate =
    s.rate === null
      ? 'No verified citation carries a grade.'
      : `Of the ${s.verified} verified citations, <b>${s.supporting}</b> support the answer: <b>${f1(s.rate)} %</b> ${escapeHtml(formatInterval(s.ci95))} (95 % interval, bootstrap over questions). The rest only mention it.`;
  return `<p>A verified citation <i>supports</i> the answer when its record states it about what the question asks, and only <i>mentions</i> it otherwise; only supporting citations count toward the confidence (docs/CONFIDENCE.md). ${rate}${
    s.confidenceGraded ? '' : ' Some answers came from a service that did not grade its citations: their confidence counts occurrence, and so does the risk–coverage table for them.'
  }</p>
<table class="narrow"><thead><tr><th>answer's support</th><th class="num">answers</th><th class="num">accuracy %</th></tr></thead><tbody>${rows}</tbody></table>
${s.mentionsTotal ? `<p>Citations graded <i>mentions</i> (${s.mentionsTotal}${s.mentionsTotal > MAX_SHOWN ? `, the first ${MAX_SHOWN} shown` : ''}):</p><table><thead><tr><th>id</th><th>question</th><th>source: answer</th><th>quote</th></tr></thead><tbody>${mentions}</tbody></table>` : ''}`;
};
