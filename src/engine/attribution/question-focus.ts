import type { EvidenceRecord } from '../../evidence/recording';
import type { EntityLabel } from '../../evidence/types';
import { normaliseText } from '../../text/answers';

/**
 * What the question asks about, as far as the engine can tell without a model: the names it states (runs of
 * capitalised words, quoted titles) and the entities the run linked from it (a `getWikidataID` title or a label the
 * question names, a CRAG KG call's argument it names). A support grade (./support.ts) asks whether a record is about
 * one of these.
 */
export interface QuestionFocus {
  /** The question, normalised and padded with spaces (so ` name ` finds whole words). */
  words: string;
  /** The question as asked, for names that must be capitalised there. */
  raw: string;
  /** Normalised names of what the question asks about. */
  names: string[];
  /** Wikidata ids of the entities the run linked from the question. */
  ids: Set<string>;
  /** The normalised answer a record must say something about besides itself (see `withoutAnswer`). */
  answer?: string;
}

const MAX_NAMES = 40;
const MAX_QUESTION_CHARS = 2_000;

/** Capitalised words that open or join a question without naming anything. */
const NOT_NAMES = new Set(
  ('what who whom whose which when where why how is are was were did do does can could would should will shall may might ' +
    'in on at of the a an to by for from with and or name list give tell show find please i was has have had if as per ' +
    'according besides between during after before since until since among also yes no true false')
    .split(' '),
);
/** Small words that may stand inside a name (`Lord of the Rings`, `Academy Award for Best Picture`). */
const JOINERS = new Set('of the and de del da la le von van der for in on y du des di al el'.split(' '));
const QUOTED = /["“”«»„]([^"“”«»„]{2,120})["“”«»„]/g;

/** A run of digits alone (`2012`) qualifies the question; it names nothing. */
const numeric = (run: string) => /^[\d\s.,/-]+$/.test(run);

const clean = (token: string) => token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/['’]s$/u, '');
const capitalised = (token: string) => /^[\p{Lu}\p{N}]/u.test(token);

/** Runs of capitalised words in the question, trimmed of question words and joiners at their edges. */
const capitalisedRuns = (question: string): string[] => {
  const runs: string[] = [];
  let run: string[] = [];
  const end = () => {
    while (run.length && (JOINERS.has(run[run.length - 1].toLowerCase()) || NOT_NAMES.has(run[run.length - 1].toLowerCase()))) run.pop();
    if (run.length && !numeric(run.join(' '))) runs.push(run.join(' '));
    run = [];
  };
  for (const raw of question.split(/\s+/)) {
    const token = clean(raw);
    const lower = token.toLowerCase();
    if (!token) {
      end();
      continue;
    }
    if (capitalised(token) && !(run.length === 0 && NOT_NAMES.has(lower))) run.push(token);
    else if (run.length && JOINERS.has(lower)) run.push(token);
    else end();
    // A name ends at a comma, a question mark or a closing bracket.
    if (/[,;:?!)\]]$/.test(raw)) end();
  }
  end();
  return runs;
};

/** Whether the question names `name`: a name of several words as words of the question, a single word capitalised there. */
export const namedIn = (focus: Pick<QuestionFocus, 'words' | 'raw'>, name: string): boolean => {
  const bare = name.replace(/\s*\([^)]*\)\s*$/, '').trim();
  const n = normaliseText(bare);
  if (!n || n.length < 2 || NOT_NAMES.has(n)) return false;
  if (n.includes(' ')) return focus.words.includes(` ${n} `);
  if (!focus.words.includes(` ${n} `)) return false;
  // One word: only where the question writes it as a name (`Pixar`, not "the river").
  const escaped = bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const written = focus.raw.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'giu'));
  return [...written].some((m) => capitalised(m[0]));
};

/**
 * Whether a normalised name is the answer (normalised): the answer stands in it, or it stands in an answer hardly
 * longer than itself ("Leonardo DiCaprio" for "DiCaprio"; not a sentence about it such as "Robert Zemeckis was born in
 * Chicago").
 */
export const isTheAnswer = (name: string, answer: string): boolean => {
  if (!name || !answer) return false;
  if (` ${name} `.includes(` ${answer} `)) return true;
  return ` ${answer} `.includes(` ${name} `) && answer.split(' ').length <= name.split(' ').length + 1;
};

const narrowed = new WeakMap<QuestionFocus, Map<string, QuestionFocus>>();

/**
 * The focus for judging one answer: a name the answer itself is ("Who is older, Morgan Freeman or Anthony Hopkins?"
 * answered "Morgan Freeman") does not make a record about the question, since any record naming the answer names it.
 */
export const withoutAnswer = (focus: QuestionFocus, answer: string): QuestionFocus => {
  const a = normaliseText(answer);
  let byAnswer = narrowed.get(focus);
  if (!byAnswer) narrowed.set(focus, (byAnswer = new Map()));
  let out = byAnswer.get(a);
  if (!out) byAnswer.set(a, (out = { ...focus, names: focus.names.filter((n) => !isTheAnswer(n, a)), answer: a }));
  return out;
};

/** The question's focus, from its text and the records of the run's evidence (linked entities). */
export const questionFocus = (question: string, records: Iterable<EvidenceRecord> = []): QuestionFocus => {
  const raw = question.slice(0, MAX_QUESTION_CHARS);
  const focus: QuestionFocus = { words: ` ${normaliseText(raw)} `, raw, names: [], ids: new Set() };
  const add = (name: string) => {
    const n = normaliseText(name.replace(/\s*\([^)]*\)\s*$/, ''));
    if (n && !NOT_NAMES.has(n) && !focus.names.includes(n) && focus.names.length < MAX_NAMES) focus.names.push(n);
  };
  for (const m of raw.matchAll(QUOTED)) add(m[1]);
  for (const run of capitalisedRuns(raw)) add(run);
  for (const r of records) {
    if (!('body' in r.response)) continue;
    const { request } = r;
    const body = r.response.body;
    if (request.source === 'evidence' && request.method === 'wikidataId' && typeof body === 'string' && namedIn(focus, String(request.args[0] ?? ''))) {
      focus.ids.add(body);
      add(String(request.args[0]));
    } else if (request.source === 'evidence' && request.method === 'labels' && Array.isArray(body)) {
      for (const l of body as EntityLabel[]) {
        if (l.label && namedIn(focus, l.label)) {
          focus.ids.add(l.id);
          add(l.label);
        }
      }
    } else if (request.source === 'kg') {
      for (const v of Object.values(request.args).flatMap((x) => (Array.isArray(x) ? x : [x]))) if (typeof v === 'string' && namedIn(focus, v)) add(v);
    }
  }
  return focus;
};
