import type { EvidenceRecord } from '../../evidence/recording';
import { normaliseText } from '../../text/answers';
import type { Claim, Support } from '../types';
import { CONTEXT_TABLE } from './context-documents';
import type { EvidenceDocument, Segment } from './documents';
import { findAnswer, segmentWords, type Found } from './find-answer';
import { isTheAnswer, namedIn, withoutAnswer, type QuestionFocus } from './question-focus';

/**
 * The support grade of a verified citation: `supports` when the record states the answer about what the question
 * asks, `mentions` when the answer only occurs in it. Decided by structure, per kind of record:
 * - a KG row (a SPARQL result, a statement list, a label): the query that produced it names an entity the run linked
 *   from the question, or the row holds one (question-focus.ts);
 * - a CRAG KG result: the call's arguments name something the question names;
 * - a table cell: the program read that cell (Claim.read), so it is the cell of the row the program matched;
 * - text (a page, a search hit, a passage, a supplied web page): the page's title is about the question's subject,
 *   or the quoted span names it (and, as for every citation, states the answer); a passage `extract_info` read counts
 *   as about it.
 * The answer is looked for in the part of the record that is about the subject first, so a page that states it
 * there is quoted there.
 */

const QID = /(?<![A-Za-z0-9])Q\d{1,12}(?!\d)/g;

/**
 * A title names the subject: the question names the title, or the title holds a name the question states. A web page's
 * title is read part by part (`Microsoft Office 2019 - Wikipedia`: the site's name is no part of the subject).
 */
const titleAbout = (focus: QuestionFocus, title: string): boolean =>
  title.split(/\s[|\-–—·:]\s/).some((part) => {
    const bare = normaliseText(part.replace(/\s*\([^)]*\)\s*$/, ''));
    if (!bare) return false;
    // A page about the answer itself is not about the question (any page on the answer names it).
    if (focus.answer && isTheAnswer(bare, focus.answer)) return false;
    if (namedIn(focus, part)) return true;
    return focus.names.some((n) => ` ${bare} `.includes(` ${n} `));
  });

const holdsLinkedId = (focus: QuestionFocus, text: string): boolean => {
  if (!focus.ids.size) return false;
  for (const m of text.matchAll(QID)) if (focus.ids.has(m[0])) return true;
  return false;
};

/** The whole record is about the subject: its title, the ids its query named, the names its call gave. */
const documentAbout = (focus: QuestionFocus, doc: EvidenceDocument): boolean =>
  (!!doc.title && titleAbout(focus, doc.title)) ||
  !!doc.queryIds?.some((id) => focus.ids.has(id)) ||
  !!doc.queryNames?.some((n) => namedIn(focus, n));

const segmentAbout = (focus: QuestionFocus, segment: Segment, words: string): boolean =>
  focus.names.some((n) => words.includes(` ${n} `)) || holdsLinkedId(focus, segment.text) || (!!segment.title && titleAbout(focus, segment.title));

const viewsByFocus = new WeakMap<QuestionFocus, WeakMap<EvidenceDocument, EvidenceDocument | null>>();

/** The part of a record that is about what the question asks (all of it, some segments, or none). */
const focusView = (doc: EvidenceDocument, focus: QuestionFocus): EvidenceDocument | undefined => {
  let views = viewsByFocus.get(focus);
  if (!views) viewsByFocus.set(focus, (views = new WeakMap()));
  const cached = views.get(doc);
  if (cached !== undefined) return cached ?? undefined;
  let view: EvidenceDocument | null = null;
  if (documentAbout(focus, doc)) view = doc;
  else if (focus.names.length || focus.ids.size) {
    const words = segmentWords(doc);
    const segments = doc.segments.filter((s, i) => segmentAbout(focus, s, words[i]));
    if (segments.length) view = { ...doc, segments };
  }
  views.set(doc, view);
  return view ?? undefined;
};

/** Records looked at for bridges: enough for any run's evidence (a run stores a few dozen). */
const MAX_BRIDGE_RECORDS = 400;

/**
 * The question's focus with the entities one hop away: an entity the run linked (`getWikidataID`) or a page it read,
 * which a part of a record about the question's subject names. "In which city was the director of Forrest Gump
 * born?": the Forrest Gump hit names Robert Zemeckis, the run linked him, and the query about him then supports
 * "Chicago". A title no record about the subject names (the agent's own guess) stays outside.
 */
export const bridgedFocus = (focus: QuestionFocus, records: Iterable<EvidenceRecord>, documentOf: (key: string) => EvidenceDocument | undefined): QuestionFocus => {
  const candidates: Array<{ name: string; id?: string }> = [];
  const docs: EvidenceDocument[] = [];
  let n = 0;
  for (const r of records) {
    if (n++ >= MAX_BRIDGE_RECORDS) break;
    const { request } = r;
    if (request.source !== 'evidence' || !('body' in r.response)) continue;
    const title = String(request.args[0] ?? '');
    if (request.method === 'wikidataId' && typeof r.response.body === 'string' && !focus.ids.has(r.response.body)) candidates.push({ name: title, id: r.response.body });
    else if (request.method === 'page' && r.response.body && !namedIn(focus, title)) candidates.push({ name: title });
    if (request.method === 'search' || request.method === 'page' || request.method === 'sparql') {
      const doc = documentOf(r.key);
      if (doc) docs.push(doc);
    }
  }
  if (!candidates.length) return focus;
  const about = docs.map((d) => focusView(d, focus)).filter((v): v is EvidenceDocument => !!v);
  if (!about.length) return focus;
  const bridged: QuestionFocus = { ...focus, names: [...focus.names], ids: new Set(focus.ids) };
  for (const c of candidates) {
    const name = normaliseText(c.name.replace(/\s*\([^)]*\)\s*$/, ''));
    if (!name || name.length < 3) continue;
    const named = about.some((d) => segmentWords(d).some((w) => w.includes(` ${name} `)) || (!!c.id && d.segments.some((s) => s.text.includes(c.id!))));
    if (!named) continue;
    if (!bridged.names.includes(name)) bridged.names.push(name);
    if (c.id) bridged.ids.add(c.id);
  }
  return bridged;
};

const passageName = (key: string) => /^context passage (.+)$/s.exec(key)?.[1];

/** The part of a record a claim's strategy says it read: the table cells, or the whole of a passage it read. */
const readView = (doc: EvidenceDocument, claim: Claim): EvidenceDocument | undefined => {
  const read = claim.read;
  if (!read) return undefined;
  if (doc.key === CONTEXT_TABLE) {
    const cells = read.cells ?? [];
    const segments = doc.segments.filter((s) => s.row !== undefined && cells.some((c) => c.row === s.row && c.text.trim() === s.text.trim()));
    return segments.length ? { ...doc, segments } : undefined;
  }
  const name = passageName(doc.key);
  return name !== undefined && read.passages?.includes(name) ? doc : undefined;
};

/** Where the answer stands in the part of the record that supports it; undefined when no such part holds it. */
const supportingFind = (answer: string, doc: EvidenceDocument, focus: QuestionFocus, claim: Claim): Found | undefined => {
  const read = readView(doc, claim);
  const byRead = read && findAnswer(answer, read);
  if (byRead) return byRead;
  // A table is about the question only where its program read it.
  if (doc.key === CONTEXT_TABLE) return undefined;
  const about = focusView(doc, focus);
  return about ? findAnswer(answer, about) : undefined;
};

export interface GradedFind extends Found {
  support: Support;
}

/** Where `answer` occurs in `doc` and whether that supports it (quoting the supporting span when there is one). */
export const gradedFind = (answer: string, doc: EvidenceDocument, focus: QuestionFocus, claim: Claim): GradedFind | undefined => {
  const found = findAnswer(answer, doc);
  if (!found) return undefined;
  const supporting = supportingFind(answer, doc, withoutAnswer(focus, answer), claim);
  return supporting ? { ...supporting, support: 'supports' } : { ...found, support: 'mentions' };
};
