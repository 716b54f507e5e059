import { bundle, type BundledFile } from '../generated/bundle';
import { TOOL_SYMBOLS } from './levenshtein';

/**
 * Few-shot solution processes in the agent text protocol (ARCHITECTURE.md §2), one file each at
 * `fewshot/<benchmark>/<NN-slug>.txt`:
 *
 *   Question: …
 *   Thought: …
 *   Action: <tool>
 *   Action Input: …
 *   Observation: …            (any field may continue on the following lines, up to the next label)
 *   … more Thought/Action/Action Input/Observation steps …
 *   Thought: …
 *   Final Answer: …
 *
 * The parser is strict, because these files are prompts: a typo silently teaches the model a wrong format.
 * Values are kept verbatim, so `renderProcess(parseProcess(t)) === t` for every text that parses (LF line
 * endings; CRLF is read as LF; a missing final newline is added).
 */
export interface ProcessStep {
  thought: string;
  action: string;
  actionInput: string;
  observation: string;
}

export interface SolutionProcess {
  /** `<benchmark>/<NN-slug>`. */
  id: string;
  benchmark: string;
  question: string;
  steps: ProcessStep[];
  /** The thought right before the final answer. */
  finalThought: string;
  finalAnswer: string;
  /** Tool names in the order the steps call them. */
  toolSequence: string[];
}

export class ProcessParseError extends Error {
  constructor(
    readonly id: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${id}:${line}: ${detail}`);
    this.name = 'ProcessParseError';
  }
}

const LABELS = ['Question', 'Thought', 'Action', 'Action Input', 'Observation', 'Final Answer'] as const;
type Label = (typeof LABELS)[number];

// Longest first, so "Action Input:" is not read as "Action:" followed by "Input: …".
const LABELS_LONGEST_FIRST = [...LABELS].sort((a, b) => b.length - a.length);

const labelOf = (line: string): Label | undefined => LABELS_LONGEST_FIRST.find((l) => line.startsWith(`${l}:`));

interface Field {
  label: Label;
  value: string;
  line: number;
}

/** Normalises `fewshot/mintaka/01-x.txt`, `mintaka/01-x.txt` and `mintaka/01-x` to `mintaka/01-x`. */
const normaliseId = (id: string): string => id.replace(/^fewshot\//, '').replace(/\.txt$/, '');

const splitFields = (text: string, id: string): Field[] => {
  const lines = text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const fields: Field[] = [];
  lines.forEach((line, index) => {
    const lineNo = index + 1;
    const label = labelOf(line);
    if (!label) {
      if (fields.length === 0) {
        throw new ProcessParseError(id, lineNo, `expected "Question: …" as the first line, got ${JSON.stringify(line.slice(0, 60))}`);
      }
      fields[fields.length - 1].value += `\n${line}`;
      return;
    }
    const rest = line.slice(label.length + 1);
    if (rest !== '' && !rest.startsWith(' ')) {
      throw new ProcessParseError(id, lineNo, `"${label}:" must be followed by a space`);
    }
    if (rest === ' ') throw new ProcessParseError(id, lineNo, `"${label}:" has only a trailing space; put the value after it or on the next line`);
    fields.push({ label, value: rest.slice(1), line: lineNo });
  });
  for (const f of fields) {
    if (/\n\s*$/.test(f.value)) {
      const lastLine = f.line + f.value.split('\n').length - 1;
      throw new ProcessParseError(id, lastLine, `blank line at the end of "${f.label}"; steps follow each other without blank lines`);
    }
  }
  return fields;
};

/**
 * Parses one solution process; throws ProcessParseError naming the file and line on malformed input.
 * @example parseProcess(text, 'mintaka/01-tallest-building').toolSequence // ['wikisearch', 'read']
 */
export const parseProcess = (text: string, rawId: string): SolutionProcess => {
  const id = normaliseId(rawId);
  const benchmark = id.includes('/') ? id.slice(0, id.indexOf('/')) : '';
  if (text.trim() === '') throw new ProcessParseError(id, 1, 'empty file');
  const fields = splitFields(text, id);
  let at = 0;
  const lastLine = fields[fields.length - 1].line;
  const take = (label: Label, context: string): Field => {
    const f = fields[at];
    if (!f) throw new ProcessParseError(id, lastLine, `file ends early: expected "${label}:" ${context}`);
    if (f.label !== label) throw new ProcessParseError(id, f.line, `expected "${label}:" ${context}, got "${f.label}:"`);
    if (label !== 'Observation' && f.value.trim() === '') throw new ProcessParseError(id, f.line, `"${label}:" is empty`);
    at++;
    return f;
  };

  const question = take('Question', 'first').value;
  const steps: ProcessStep[] = [];
  let finalThought: string | undefined;
  let finalAnswer: string | undefined;
  while (at < fields.length) {
    const thought = take('Thought', 'to start a step').value;
    const next = fields[at];
    if (next?.label === 'Final Answer') {
      finalThought = thought;
      finalAnswer = take('Final Answer', 'after the last thought').value;
      break;
    }
    const action = take('Action', 'after "Thought:" (or "Final Answer:")');
    if (!(action.value in TOOL_SYMBOLS)) {
      throw new ProcessParseError(id, action.line, `unknown tool "${action.value}"; tools are ${Object.keys(TOOL_SYMBOLS).join(', ')}`);
    }
    const actionInput = take('Action Input', 'after "Action:"').value;
    const observation = take('Observation', 'after "Action Input:"').value;
    steps.push({ thought, action: action.value, actionInput, observation });
  }
  if (finalAnswer === undefined || finalThought === undefined) {
    throw new ProcessParseError(id, lastLine, 'no "Final Answer:" — a process ends with "Thought: …" then "Final Answer: …"');
  }
  if (at < fields.length) {
    throw new ProcessParseError(id, fields[at].line, `"${fields[at].label}:" after "Final Answer:"; the answer must be last`);
  }
  return { id, benchmark, question, steps, finalThought, finalAnswer, toolSequence: steps.map((s) => s.action) };
};

const renderField = (label: Label, value: string): string =>
  `${label}:${value === '' || value.startsWith('\n') ? '' : ' '}${value}`;

/** Writes a process back in the text protocol; the inverse of parseProcess. */
export const renderProcess = (p: Pick<SolutionProcess, 'question' | 'steps' | 'finalThought' | 'finalAnswer'>): string => {
  const lines = [renderField('Question', p.question)];
  for (const s of p.steps) {
    lines.push(
      renderField('Thought', s.thought),
      renderField('Action', s.action),
      renderField('Action Input', s.actionInput),
      renderField('Observation', s.observation),
    );
  }
  lines.push(renderField('Thought', p.finalThought), renderField('Final Answer', p.finalAnswer));
  return `${lines.join('\n')}\n`;
};

const libraryCache = new Map<string, SolutionProcess[]>();

/**
 * All solution processes of one benchmark (`mintaka`, `qald9plus`, `compmix`) from the generated bundle,
 * sorted by file name. The result is cached, so its identity is stable (selection caches key on it).
 * Throws ProcessParseError for the first malformed file.
 */
export const loadLibrary = (benchmark: string, files: readonly BundledFile[] = bundle.fewshot): SolutionProcess[] => {
  const useCache = files === bundle.fewshot;
  const hit = useCache ? libraryCache.get(benchmark) : undefined;
  if (hit) return hit;
  const prefix = `fewshot/${benchmark}/`;
  const library = files
    .filter((f) => f.file.replace(/\\/g, '/').startsWith(prefix) && f.file.endsWith('.txt'))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    .map((f) => parseProcess(f.text, f.file.replace(/\\/g, '/')));
  if (useCache) libraryCache.set(benchmark, library);
  return library;
};

/** Folders under fewshot/ that hold another format (HProPro programs), not agent solution processes. */
const NOT_AGENT_LIBRARIES = new Set(['hybridqa']);

/** The agent libraries in the bundle: the benchmarks' own and any imported with `npm run fewshot:import`. */
export const bundledLibraryNames = (files: readonly BundledFile[] = bundle.fewshot): string[] => {
  const names = new Set<string>();
  for (const f of files) {
    const m = /^fewshot\/([^/]+)\/[^/]+\.txt$/.exec(f.file.replace(/\\/g, '/'));
    if (m && !NOT_AGENT_LIBRARIES.has(m[1])) names.add(m[1]);
  }
  return [...names].sort();
};

/** The `slug` of a library file name `NN-slug.txt`: the question's first six words, lowercase ASCII, dash-joined. */
export const processSlug = (question: string) =>
  question
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .split('-')
    .slice(0, 6)
    .join('-') || 'process';
