import { jsonProblem } from './validate';

/** Parses a JSON Lines text; blank lines are skipped, a broken line names its line number. */
export const parseJsonLines = (text: string): unknown[] => {
  const out: unknown[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw new Error(`line ${i + 1}: not valid JSON (${jsonProblem(e)})`);
    }
  });
  return out;
};

/** Accepts either a JSON array or JSON Lines. */
export const parseJsonOrLines = (text: string): unknown[] => {
  const t = text.trimStart();
  if (t.startsWith('[')) {
    try {
      return JSON.parse(t) as unknown[];
    } catch (e) {
      throw new Error(`not valid JSON (${jsonProblem(e)})`);
    }
  }
  return parseJsonLines(text);
};

/**
 * Some dumps store a list as its Python repr ("['a', \"b's\"]"). Reads such a list of strings;
 * anything else becomes a one-element list, and an empty string none.
 */
export const parseStringList = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== 'string') return value === null || value === undefined ? [] : [String(value)];
  const t = value.trim();
  if (!t) return [];
  if (!t.startsWith('[')) return [t];
  try {
    const parsed = JSON.parse(t);
    if (Array.isArray(parsed)) return parsed.map(String);
  } catch {
    // fall through to the Python-literal reader
  }
  const items: string[] = [];
  const re = /'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(t); m; m = re.exec(t)) items.push((m[1] ?? m[2]).replace(/\\(.)/g, '$1'));
  return items;
};
