import { parseProcess, processSlug, renderProcess, type ProcessStep, type SolutionProcess } from './library';

/**
 * Reads the HQA authors' published human libraries (`app/data/{mintaka,qald,compmix}.json` in
 * NIMI-research/Hybrid-QA: an array of `{Question, Dataset?, Action_Sequence, One_Shot}`) and turns every record into a
 * solution process in our protocol. Pure: the CLI (`cli/fewshot-import.ts`) reads and writes the files.
 *
 * Their `One_Shot` is the ReAct text of one human run (`Question:…\n\n\nThought:…\n\nAction:WikiSearch\n\nAction Input: …`,
 * braces doubled for Python's str.format, a final `Final Answer: Wikipedia_Answer: …, Wikidata_Answer: […]` and an
 * `Assistant Response: …` paragraph). Tool names are mapped to ours, inputs rewritten to what our tools read, and
 * observations kept as they are: they came from the live Wikipedia and Wikidata of the time, not from our snapshot.
 */

/** Their tool → ours. WikiSearch finds a page (ours lists hits); WikiSearchSummary reads a page (ours: `read`). */
export const HQA_TOOL_MAP: Readonly<Record<string, string>> = {
  WikiSearch: 'wikisearch',
  WikiSearchSummary: 'read',
  GetWikidataID: 'getWikidataID',
  GenerateSparql: 'generateQuery',
  RunSparql: 'runQuery',
  GetLabel: 'getLabel',
};

export const MAX_IMPORT_RECORDS = 1_000;
export const MAX_ONE_SHOT_CHARS = 100_000;

export interface ImportedProcess {
  /** `NN-slug.txt` */
  file: string;
  text: string;
  process: SolutionProcess;
  /** Their Action_Sequence disagreed with the actions in One_Shot (kept: One_Shot is what the model sees). */
  sequenceMismatch?: boolean;
}

export interface ImportResult {
  processes: ImportedProcess[];
  skipped: { index: number; question: string; reason: string }[];
}

const LABELS = ['Question', 'Thought', 'Action Input', 'Action', 'Observation', 'Final Answer'] as const;
type Label = (typeof LABELS)[number];
const LABEL_AT_LINE = new RegExp(`^\\s*(${LABELS.join('|').replace(/ /g, '\\s*')})\\s*:`, 'i');

const canonical = (raw: string): Label => LABELS.find((l) => l.toLowerCase() === raw.toLowerCase().replace(/\s+/g, ' '))!;

/** Blank lines and surrounding space inside one field go: our files have none. */
const tidy = (text: string): string =>
  text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .join('\n')
    .trim();

interface Field {
  label: Label;
  value: string;
}

const fieldsOf = (oneShot: string): Field[] => {
  const fields: Field[] = [];
  for (const line of oneShot.replace(/\r\n?/g, '\n').split('\n')) {
    const m = LABEL_AT_LINE.exec(line);
    if (m) fields.push({ label: canonical(m[1]), value: line.slice(m[0].length) });
    else if (fields.length) fields[fields.length - 1].value += `\n${line}`;
  }
  for (const f of fields) f.value = tidy(f.value);
  return fields;
};

/** `['A', 'B']`, `[A, B]`, `A` → `['A', 'B']` / `['A']`. */
const listItems = (text: string): string[] => {
  const t = text.trim();
  const inner = /^\[(.*)\]$/s.exec(t)?.[1] ?? t;
  return inner
    .split(/\s*,\s*(?=['"]|[^'"]*$)/)
    .map((s) => s.trim().replace(/^(['"])(.*)\1$/s, '$2').trim())
    .filter(Boolean);
};

/** What our tool reads, from what their tool was given. */
const ourInput = (tool: string, input: string): string => {
  const one = input.replace(/\s*\n\s*/g, ' ').trim();
  switch (tool) {
    case 'getWikidataID':
      // Their input is a Python list of titles; ours takes titles separated by "|" (commas occur in titles).
      return /^\[.*\]$/s.test(one) ? listItems(one).join(' | ') : one;
    case 'getLabel':
      return listItems(one).join(', ');
    case 'read':
      // Their summary tool takes a keyword or a list of them; ours reads one page, by title.
      return listItems(one)[0] ?? one;
    case 'runQuery':
      return input.trim();
    default:
      return one;
  }
};


// Their runs sometimes act without a thought, or answer straight after an observation; our format needs one.
const NO_THOUGHT = 'Next I use a tool.';
const NO_FINAL_THOUGHT = 'The observations answer the question.';

class SkipError extends Error {}

const convert = (record: Record<string, unknown>, name: string, index: number): Omit<ImportedProcess, 'file'> => {
  const question = typeof record.Question === 'string' ? tidy(record.Question).replace(/\n/g, ' ') : '';
  const oneShot = typeof record.One_Shot === 'string' ? record.One_Shot : '';
  if (!question) throw new SkipError('no "Question" string');
  if (!oneShot) throw new SkipError('no "One_Shot" string');
  if (oneShot.length > MAX_ONE_SHOT_CHARS) throw new SkipError(`"One_Shot" is longer than ${MAX_ONE_SHOT_CHARS} characters`);
  // Their prompts went through Python's str.format, so literal braces are doubled.
  const fields = fieldsOf(oneShot.replace(/\{\{/g, '{').replace(/\}\}/g, '}'));

  const steps: ProcessStep[] = [];
  let thought: string | undefined;
  let finalThought: string | undefined;
  let finalAnswer: string | undefined;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.label === 'Question') continue;
    if (finalAnswer !== undefined) {
      // Anything after the final answer belongs to it (e.g. a stray "Thought:" in the Assistant Response).
      finalAnswer += `\n${f.label}: ${f.value}`;
      continue;
    }
    if (f.label === 'Thought') thought = thought ? `${thought}\n${f.value}` : f.value;
    else if (f.label === 'Action') {
      const tool = HQA_TOOL_MAP[f.value.trim()];
      if (!tool) throw new SkipError(`unknown tool "${f.value.trim().slice(0, 40)}"; known: ${Object.keys(HQA_TOOL_MAP).join(', ')}`);
      const inputField = fields[i + 1]?.label === 'Action Input' ? fields[++i] : undefined;
      const obsField = fields[i + 1]?.label === 'Observation' ? fields[++i] : undefined;
      const actionInput = ourInput(tool, inputField?.value ?? '');
      if (!actionInput) throw new SkipError(`step ${steps.length + 1} (${f.value.trim()}) has no Action Input`);
      steps.push({ thought: thought || NO_THOUGHT, action: tool, actionInput, observation: obsField?.value ?? '' });
      thought = undefined;
    } else if (f.label === 'Final Answer') {
      finalThought = thought || NO_FINAL_THOUGHT;
      finalAnswer = f.value;
    } else if (f.label === 'Observation') {
      throw new SkipError(`an "Observation:" with no action before it (step ${steps.length + 1})`);
    }
  }
  if (finalAnswer === undefined || !finalAnswer.trim()) throw new SkipError('no "Final Answer:"');
  if (!steps.length) throw new SkipError('no tool step');

  const process = { question, steps, finalThought: finalThought!, finalAnswer: tidy(finalAnswer) };
  const text = renderProcess(process);
  // The strict library parser is the judge: a line inside a field that reads as a label would mis-teach the format.
  let parsed: SolutionProcess;
  try {
    parsed = parseProcess(text, `${name}/${String(index + 1).padStart(2, '0')}-${processSlug(question)}`);
  } catch (err) {
    throw new SkipError(`does not convert to a valid process: ${err instanceof Error ? err.message : String(err)}`);
  }
  const theirs = typeof record.Action_Sequence === 'string' ? record.Action_Sequence.split(/\s+/).filter(Boolean).map((t) => HQA_TOOL_MAP[t] ?? t) : undefined;
  const sequenceMismatch = theirs ? theirs.join(' ') !== parsed.toolSequence.join(' ') : undefined;
  return { text, process: parsed, ...(sequenceMismatch ? { sequenceMismatch } : {}) };
};

/**
 * Converts a parsed `app/data/*.json` file. Records that cannot be converted are skipped with a reason, not fatal.
 * @example importHqaJson(JSON.parse(text), 'hqa-mintaka').processes[0].file // '01-what-is-the-longest-river-in.txt'
 */
export const importHqaJson = (data: unknown, name: string): ImportResult => {
  if (!Array.isArray(data)) throw new Error('expected a JSON array of {Question, Action_Sequence, One_Shot} records (the format of app/data/mintaka.json)');
  if (data.length > MAX_IMPORT_RECORDS) throw new Error(`the file holds ${data.length} records; at most ${MAX_IMPORT_RECORDS} are imported at once`);
  const processes: ImportedProcess[] = [];
  const skipped: ImportResult['skipped'] = [];
  data.forEach((record, index) => {
    const question = record && typeof record === 'object' && typeof (record as Record<string, unknown>).Question === 'string' ? String((record as Record<string, unknown>).Question).slice(0, 120) : '';
    if (!record || typeof record !== 'object' || Array.isArray(record)) {
      skipped.push({ index, question, reason: 'not an object' });
      return;
    }
    try {
      const done = convert(record as Record<string, unknown>, name, processes.length);
      const file = `${String(processes.length + 1).padStart(2, '0')}-${processSlug(done.process.question)}.txt`;
      processes.push({ ...done, file });
    } catch (err) {
      if (!(err instanceof SkipError)) throw err;
      skipped.push({ index, question, reason: err.message });
    }
  });
  return { processes, skipped };
};

/** The manifest written beside an imported library (`fewshot/<name>/library.json`); the replay check reads it. */
export interface LibraryManifest {
  format: 'hqa-json';
  /** The file it was imported from (base name only). */
  source: string;
  processes: number;
  skipped: number;
  toolMap: Record<string, string>;
}
