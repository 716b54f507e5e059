/**
 * Reads one agent turn from what a model really writes after `Thought:` (generation already stopped at
 * `Observation:`). Models add prose before the first label, wrap lines in markdown fences, bold the labels
 * (`**Action:**`), forget `Action Input:` (`Action: wikisearch[Forrest Gump]`), vary the case of tool names,
 * or write both an action and a final answer. Everything here is pure, so it is tested on its own.
 *
 * Decision for a turn that has both an action and a final answer: whichever label comes FIRST wins.
 * An action first means the model went on to imagine the tool's result, so its answer is unfounded and
 * the action runs. A final answer first means the model had decided; a trailing action is ignored.
 */
export type ParsedTurn =
  | { kind: 'action'; thought: string; tool: string; input: string }
  | ({ kind: 'final'; thought: string; answer: string } & Declarations)
  | { kind: 'invalid'; thought: string; reason: string };

/**
 * What the agent says each source answered, in its final turn: `Wikipedia Answer: …` / `Wikidata Answer: …` lines,
 * or the paper's one-line `Wikipedia_Answer: …, Wikidata_Answer: […]`, and the paper's `Assistant Response: …`.
 * A source declared as "None" is present with an empty value: the agent said that source gave nothing.
 */
export interface Declarations {
  declared?: { wikipedia?: string; wikidata?: string };
  response?: string;
}

type Label = 'thought' | 'action' | 'action input' | 'final answer' | 'observation';

// Longest alternatives first, so "Action Input:" is never read as "Action:".
const LABEL_RE = /^\s*(?:[-*>#]+\s*)?(?:\*\*|__)?\s*(final\s*answer|action\s*input|action|thought|observation)\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*/i;

const labelName = (raw: string): Label => raw.toLowerCase().replace(/\s+/g, ' ') as Label;

/** Drops fence lines and stray emphasis, keeping the text inside. */
const clean = (text: string): string =>
  text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => !/^\s*```[\w-]*\s*$/.test(line))
    .join('\n');

interface Field {
  label: Label | 'prose';
  value: string;
}

const splitFields = (text: string): Field[] => {
  const fields: Field[] = [];
  for (const line of clean(text).split('\n')) {
    const m = LABEL_RE.exec(line);
    // An empty thought with the next label on its own line ("Thought: Action:generateQuery", as GPT-4 wrote in the
    // HQA authors' runs): two fields. Only a label right after "Thought:" counts, never one later in the sentence,
    // and not on a line quoted with ">" (how fenced data shows protocol lines, so an echoed observation stays prose).
    const next = m && labelName(m[1]) === 'thought' && !m[0].includes('>') ? LABEL_RE.exec(line.slice(m[0].length)) : null;
    if (m && next && labelName(next[1]) !== 'thought') {
      fields.push({ label: 'thought', value: '' }, { label: labelName(next[1]), value: line.slice(m[0].length + next[0].length) });
    } else if (m) {
      fields.push({ label: labelName(m[1]), value: line.slice(m[0].length) });
    } else if (fields.length) {
      fields[fields.length - 1].value += `\n${line}`;
    } else {
      fields.push({ label: 'prose', value: line });
    }
  }
  for (const f of fields) f.value = f.value.replace(/\*\*$/, '').trim();
  return fields;
};

/** `wikisearch[Forrest Gump]`, `wikisearch("Forrest Gump")`, `wikisearch: Forrest Gump`, `wikisearch Forrest Gump`. */
const splitInlineAction = (value: string): { tool: string; rest: string } => {
  const firstLine = value.split('\n')[0].trim().replace(/^`+|`+$/g, '');
  const call = /^([A-Za-z_][\w-]*)\s*[[(](.*)[\])]\s*$/s.exec(firstLine);
  if (call) return { tool: call[1], rest: call[2].trim() };
  const m = /^([A-Za-z_][\w-]*)\s*(?::\s*|\s+)?(.*)$/s.exec(firstLine);
  if (!m) return { tool: firstLine, rest: '' };
  return { tool: m[1], rest: m[2].trim() };
};

/**
 * Removes quotes, backticks or a code fence around a whole input; tools do finer unwrapping.
 * `Action Input: ```sparql` opens a fence on the label's own line, so `clean` (which drops whole fence lines)
 * removes only the closing fence; the opener is taken off here, or the query reaches runQuery with a stray "```sparql".
 */
const trimInput = (text: string) =>
  text
    .trim()
    .replace(/^```(?:[\w-]*[ \t]*\n|[ \t]*)/, '')
    .replace(/\n?[ \t]*```$/, '')
    .trim()
    .replace(/^`([^`]*)`$/s, '$1')
    .trim();

const DECLARATION_RE = /(?:^|[\s,;(])\**(wikipedia|wikidata)[ _]?answer\**\s*:\s*/gi;
const RESPONSE_RE = /(?:^|\n)\s*\**assistant[ _]?response\**\s*:\s*/i;

/** `[Christian Lindner]` → `Christian Lindner`, `'x'` → `x`, `None` → ``; a trailing comma goes. */
const declaredValue = (raw: string): string => {
  const v = raw.trim().replace(/,\s*$/, '').trim().replace(/^\[(.*)\]$/s, '$1').trim().replace(/^(['"])(.*)\1$/s, '$2').trim();
  return /^(none|null|n\/a|-)?\.?$/i.test(v) ? '' : v;
};

/** Splits the declarations and the response off a text; `rest` is what remains (the plain final answer, if any). */
export const readDeclarations = (text: string): Declarations & { rest: string } => {
  const responseAt = RESPONSE_RE.exec(text);
  const response = responseAt ? text.slice(responseAt.index + responseAt[0].length).trim() : undefined;
  const head = responseAt ? text.slice(0, responseAt.index) : text;
  const marks = [...head.matchAll(DECLARATION_RE)];
  if (!marks.length) return { rest: head.trim(), ...(response ? { response } : {}) };
  const declared: { wikipedia?: string; wikidata?: string } = {};
  marks.forEach((m, i) => {
    const start = m.index! + m[0].length;
    const end = i + 1 < marks.length ? marks[i + 1].index! : head.length;
    // A declaration ends at the next declaration or at the end of its line.
    const value = head.slice(start, end).split('\n')[0];
    const source = m[1].toLowerCase() as 'wikipedia' | 'wikidata';
    if (!(source in declared)) declared[source] = declaredValue(value);
  });
  const lines = head.slice(0, marks[0].index).trim();
  return { rest: lines, declared, ...(response ? { response } : {}) };
};

export const parseTurn = (reply: string): ParsedTurn => {
  const fields = splitFields(reply);
  // Generation may overshoot the stop sequence with an imagined observation; nothing after it counts.
  const obsAt = fields.findIndex((f) => f.label === 'observation');
  const live = obsAt >= 0 ? fields.slice(0, obsAt) : fields;

  const thoughts = live.filter((f) => f.label === 'thought' || f.label === 'prose').map((f) => f.value).filter(Boolean);
  const actionAt = live.findIndex((f) => f.label === 'action');
  const finalAt = live.findIndex((f) => f.label === 'final answer');
  // Only the thoughts before the deciding label belong to this turn.
  const decidingAt = [actionAt, finalAt].filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? live.length;
  const thought = live
    .slice(0, decidingAt)
    .filter((f) => f.label === 'thought' || f.label === 'prose')
    .map((f) => f.value)
    .filter(Boolean)
    .join('\n')
    .trim() || thoughts.join('\n').trim();

  if (finalAt >= 0 && (actionAt < 0 || finalAt < actionAt)) {
    // Declarations may sit on the final answer's line, on lines below it, or just above it.
    const above = live.slice(0, finalAt).map((f) => f.value).join('\n');
    const own = readDeclarations(live[finalAt].value);
    const before = readDeclarations(above);
    const declared = own.declared || before.declared ? { ...before.declared, ...own.declared } : undefined;
    const response = own.response ?? before.response;
    const answer = own.rest.trim();
    const extra = { ...(declared ? { declared } : {}), ...(response ? { response } : {}) };
    if (answer || declared) return { kind: 'final', thought: declared && before.declared ? before.rest : thought, answer, ...extra };
    return { kind: 'invalid', thought, reason: 'The "Final Answer:" line was empty.' };
  }
  if (actionAt >= 0) {
    const action = live[actionAt];
    const { tool, rest } = splitInlineAction(action.value);
    if (!tool) return { kind: 'invalid', thought, reason: 'The "Action:" line named no tool.' };
    const inputField = live.slice(actionAt + 1).find((f) => f.label === 'action input');
    // Missing "Action Input:": the rest of the action line, else the lines under it.
    const belowAction = action.value.split('\n').slice(1).join('\n').trim();
    const input = trimInput(inputField?.value || rest || belowAction);
    return { kind: 'action', thought, tool, input };
  }
  // The paper's agent also finishes when it declares both sources without a "Final Answer:" label.
  const bare = readDeclarations(live.map((f) => f.value).join('\n'));
  if (bare.declared && 'wikipedia' in bare.declared && 'wikidata' in bare.declared) {
    return { kind: 'final', thought: bare.rest, answer: '', declared: bare.declared, ...(bare.response ? { response: bare.response } : {}) };
  }
  if (!thought) return { kind: 'invalid', thought, reason: 'The reply was empty.' };
  return { kind: 'invalid', thought, reason: 'The reply had neither an "Action:" nor a "Final Answer:".' };
};

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

// Names models commonly use for the same tools (seen with small instruction models).
const ALIASES: Record<string, string> = {
  search: 'wikisearch',
  wikipediasearch: 'wikisearch',
  searchwikipedia: 'wikisearch',
  readpage: 'read',
  wikidataid: 'getWikidataID',
  getqid: 'getWikidataID',
  sparql: 'runQuery',
  executequery: 'runQuery',
  label: 'getLabel',
  getlabels: 'getLabel',
};

/** The registered tool a model meant (`wikiSearch`, `get_wikidata_id`, `Search`), or undefined. */
export const resolveTool = (name: string, valid: readonly string[]): string | undefined => {
  const exact = valid.find((v) => v === name);
  if (exact) return exact;
  const s = squash(name);
  const loose = valid.find((v) => squash(v) === s);
  if (loose) return loose;
  const alias = ALIASES[s];
  return alias && valid.includes(alias) ? alias : undefined;
};
