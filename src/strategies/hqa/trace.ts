import type { Source } from '../../engine/types';
import { isNonAnswer, normaliseItem } from '../../text/answers';

/**
 * One turn of the agent's trajectory (also what the fixed pipelines record). JSON only: it lives in run state.
 * `tool` is the canonical tool name when the action ran, else what the model wrote.
 */
export interface Turn {
  thought?: string;
  tool?: string;
  input?: string;
  observation?: string;
  error?: boolean;
  /** The agent's final answer, on the last turn. */
  final?: string;
  /** Per-source answers the agent declared in its final turn ('' = it declared that source gave none). */
  declared?: { wikipedia?: string; wikidata?: string };
  /** The paper's "Assistant Response:" paragraph, the context its merge step reads. */
  response?: string;
  /** Keys of the evidence records the tool call produced (what the source's claim cites). */
  records?: string[];
  /** Native tool protocol: the call as the model made it (its id, its arguments as written); `input` is their text form. */
  call?: { id: string; arguments: string };
  /** Another call of the turn before's model reply (parallel calls): no thought and no model call of its own. */
  joined?: boolean;
}

/** The declarations of the last final turn, if the agent made any. */
export const declaredAnswers = (turns: readonly Turn[]): { wikipedia?: string; wikidata?: string } | undefined =>
  [...turns].reverse().find((t) => t.final !== undefined || t.declared)?.declared;

const SOURCE_SUFFIX = /\s*\(source: (.+), (https?:\/\/\S+)\)\s*$/;
const ENTITY_CELL = /^([QP]\d+) \((.+)\)$/;
const MAX_ENTITIES = 10;

const ok = (t: Turn, tool: string) => t.tool === tool && !t.error && !!t.observation;

const words = (text: string) => new Set(normaliseItem(text).split(' ').filter(Boolean));

/** Whether a read asked the run's question (or none, so the tool used the run's question) rather than a sub-question. */
const asksMainQuestion = (input: string | undefined, question: string | undefined): boolean => {
  const sep = (input ?? '').search(/[#|]/);
  if (sep < 0 || !question) return true;
  const asked = words(input!.slice(sep + 1));
  if (asked.size === 0) return true;
  const main = words(question);
  const shared = [...asked].filter((w) => main.has(w)).length;
  return shared / new Set([...asked, ...main]).size >= 0.6;
};

const readAnswered = (t: Turn) => ok(t, 'read') && !/^(there is no page|the page .* has no text)/i.test(t.observation!);

/**
 * The Wikipedia answer: the last successful `read` that asked the run's question. A read that asked a sub-question
 * ("Who directed Forrest Gump?" on the way to the director's birthplace) is a bridge, not an answer, unless no
 * query ran after it (then it is the text's best say). The source note is dropped; "the page does not say" is no answer.
 */
export const wikipediaAnswer = (turns: readonly Turn[], question?: string): string | undefined => {
  const reads = turns.map((t, i) => [t, i] as const).filter(([t]) => readAnswered(t));
  const queriedAfter = (i: number) => turns.slice(i + 1).some((t) => ok(t, 'runQuery'));
  const chosen =
    [...reads].reverse().find(([t]) => asksMainQuestion(t.input, question)) ?? [...reads].reverse().find(([, i]) => !queriedAfter(i));
  if (!chosen) return undefined;
  const answer = chosen[0].observation!.replace(SOURCE_SUFFIX, '').trim();
  return isNonAnswer(answer) ? undefined : answer;
};

/** Labels the trace learnt for ids: from `getLabel` lines, `getWikidataID` lines and `runQuery` cells. */
export const labelsFromTrace = (turns: readonly Turn[]): Map<string, string> => {
  const labels = new Map<string, string>();
  for (const t of turns) {
    if (!t.observation || t.error) continue;
    if (t.tool === 'getLabel') {
      for (const m of t.observation.matchAll(/^([QP]\d+): (.+?)(?: — .*)?$/gm)) if (m[2] !== 'no label found') labels.set(m[1], m[2]);
    } else if (t.tool === 'getWikidataID') {
      for (const m of t.observation.matchAll(/^(.+): ([Q]\d+)$/gm)) if (!labels.has(m[2])) labels.set(m[2], m[1]);
    } else if (t.tool === 'runQuery') {
      for (const m of t.observation.matchAll(/\b([QP]\d+) \(([^)]+)\)/g)) if (!labels.has(m[1])) labels.set(m[1], m[2]);
    }
  }
  return labels;
};

interface QueryTable {
  vars: string[];
  rows: string[][];
}

/** Reads the compact table `runQuery` prints back into rows. */
export const parseQueryTable = (output: string): QueryTable | undefined => {
  const lines = output.split('\n').filter((l) => l.trim() && !/^\((showing \d+ of|\d+ rows?\))/.test(l.trim()));
  if (!lines.length || !lines[0].startsWith('?')) return undefined;
  const vars = lines[0].split(' | ').map((v) => v.replace(/^\?/, '').trim());
  const rows = lines.slice(1).map((l) => l.split(' | ').map((c) => c.trim()));
  return rows.length ? { vars, rows } : undefined;
};

/** The column that names the answer: a *Label column, else the first column holding entities, else the first. */
const answerColumn = (table: QueryTable): number => {
  const labelCol = table.vars.findIndex((v) => /label$/i.test(v) && table.rows.some((r) => r[table.vars.indexOf(v)]));
  if (labelCol >= 0) return labelCol;
  const entityCol = table.vars.findIndex((_, i) => table.rows.some((r) => /^[QP]\d+\b/.test(r[i] ?? '')));
  return entityCol >= 0 ? entityCol : 0;
};

const cellValue = (cell: string, labels: Map<string, string>): string => {
  const m = ENTITY_CELL.exec(cell);
  if (m) return m[2];
  return /^[QP]\d+$/.test(cell) ? (labels.get(cell) ?? cell) : cell;
};

const lastQuery = (turns: readonly Turn[]): Turn | undefined =>
  [...turns].reverse().find((t) => ok(t, 'runQuery') && (/^ASK result:/.test(t.observation!) || !!parseQueryTable(t.observation!)));

/** The answer of the last `runQuery` that returned something: yes/no for ASK, else the answer column's labels. */
export const wikidataAnswer = (turns: readonly Turn[]): string | undefined => {
  const last = lastQuery(turns);
  if (!last) return undefined;
  const ask = /^ASK result: (yes|no)/.exec(last.observation!);
  if (ask) return ask[1];
  const table = parseQueryTable(last.observation!)!;
  const col = answerColumn(table);
  const labels = labelsFromTrace(turns);
  const values = [...new Set(table.rows.map((r) => cellValue(r[col] ?? '', labels)).filter(Boolean))];
  return values.length ? values.join(', ') : undefined;
};

/** The agent's own final answer, if it gave one. */
export const agentAnswer = (turns: readonly Turn[]): string | undefined => {
  const f = [...turns].reverse().find((t) => t.final !== undefined)?.final;
  return isNonAnswer(f) ? undefined : f;
};

const wikidataSource = (id: string, label?: string): Source => ({
  title: label ? `${id} (${label})` : id,
  url: `https://www.wikidata.org/wiki/${id.startsWith('P') ? `Property:${id}` : id}`,
  kind: 'wikidata',
});

/**
 * Pages read (successful `read`s) and entities used: items found with getWikidataID, ids given to generateQuery,
 * and the entities of the last query result.
 */
export const sourcesOf = (turns: readonly Turn[]): Source[] => {
  const pages = new Map<string, Source>();
  for (const t of turns) {
    if (!ok(t, 'read')) continue;
    const m = SOURCE_SUFFIX.exec(t.observation!);
    if (m && !pages.has(m[1])) pages.set(m[1], { title: m[1], url: m[2], kind: 'wikipedia' });
  }
  const labels = labelsFromTrace(turns);
  const ids: string[] = [];
  const add = (id: string) => {
    if (!ids.includes(id) && ids.length < MAX_ENTITIES) ids.push(id);
  };
  for (const t of turns) {
    if (ok(t, 'getWikidataID')) for (const m of t.observation!.matchAll(/: (Q\d+)$/gm)) add(m[1]);
    if (t.tool === 'generateQuery' && !t.error) for (const m of (t.input ?? '').matchAll(/(?<![A-Za-z0-9])(Q\d+)(?!\d)/g)) add(m[1]);
  }
  const query = lastQuery(turns);
  const table = query && parseQueryTable(query.observation!);
  if (table) {
    const col = answerColumn(table);
    for (const r of table.rows) {
      const id = /^(Q\d+)\b/.exec(r[col] ?? '')?.[1];
      if (id) add(id);
    }
  }
  return [...pages.values(), ...ids.map((id) => wikidataSource(id, labels.get(id)))];
};
