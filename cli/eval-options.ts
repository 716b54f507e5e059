import { readFileSync } from 'node:fs';
import { fail, fromFile } from './args';

/** A value as typed: JSON when it parses (`3`, `true`, `{"maxSteps":2}`), else the string itself (`dpp`). */
export const optionValue = (raw: string): unknown => {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
};

/** Sets `a.b.c` inside an options object, making the nested objects on the way (`limits.maxSteps=2`). */
const setPath = (target: Record<string, unknown>, path: string, value: unknown) => {
  const keys = path.split('.');
  let at = target;
  for (const k of keys.slice(0, -1)) {
    const next = at[k];
    at = (at[k] = next && typeof next === 'object' && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
  }
  at[keys[keys.length - 1]] = value;
};

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The options sent with every question: `--options-file` (a JSON object), then `--recipe`, then each
 * `--option key=value` in order (later wins). Nothing is checked here: the service checks them before the first question.
 */
export const parseOptions = (a: { file?: string; recipe?: string; pairs: string[] }): Record<string, unknown> | undefined => {
  const out: Record<string, unknown> = {};
  if (a.file) {
    const parsed = fromFile(a.file, () => JSON.parse(readFileSync(a.file!, 'utf8')) as unknown);
    if (!isObject(parsed)) fail(`${a.file}: --options-file must hold one JSON object, e.g. {"fewshot": "dpp", "k": 3}`);
    Object.assign(out, parsed);
  }
  if (a.recipe) out.recipe = a.recipe;
  for (const pair of a.pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) fail(`--option takes key=value (e.g. --option k=3 or --option limits.maxSteps=2), not "${pair}"`);
    setPath(out, pair.slice(0, eq).trim(), optionValue(pair.slice(eq + 1)));
  }
  return Object.keys(out).length ? out : undefined;
};

export interface SweepSet {
  name: string;
  options: Record<string, unknown>;
}

/**
 * `--sweep FILE`: a JSON list of option sets (named 1, 2, … in order) or an object of named sets; each runs as its
 * own evaluation on the same questions, into `<out>/<name>`, with its options on top of the common ones.
 */
export const readSweep = (file: string): SweepSet[] => {
  const parsed = fromFile(file, () => JSON.parse(readFileSync(file, 'utf8')) as unknown);
  const entries: [string, unknown][] = Array.isArray(parsed) ? parsed.map((v, i) => [String(i + 1), v]) : isObject(parsed) ? Object.entries(parsed) : [];
  if (!entries.length) fail(`${file}: --sweep needs a non-empty JSON list of option objects, or an object of named option objects`);
  return entries.map(([name, options]) => {
    if (!isObject(options)) fail(`${file}: sweep set "${name}" is not a JSON object of options`);
    const safe = name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
    if (!safe || safe === '.' || safe === '..') fail(`${file}: sweep set name "${name}" cannot be a folder name`);
    return { name: safe, options: options as Record<string, unknown> };
  });
};
