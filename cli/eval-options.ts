import { CAPS, InputRefusal, readJsonFile } from '../src/eval/node/input-files';

/** Keys that would reach an object's prototype rather than the options: refused wherever options are read. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A value as typed: JSON when it parses (`3`, `true`, `{"maxSteps":2}`), else the string itself (`dpp`). */
export const optionValue = (raw: string): unknown => {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
};

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Refuses `__proto__`, `constructor` and `prototype` anywhere in an options value (JSON.parse keeps them as own keys). */
export const checkKeys = (value: unknown, where: string, path: string[] = []): void => {
  if (Array.isArray(value)) return value.forEach((v, i) => checkKeys(v, where, [...path, String(i)]));
  if (!isObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (FORBIDDEN_KEYS.has(k)) throw new InputRefusal(`${where}: the option key "${[...path, k].join('.')}" is refused (${[...FORBIDDEN_KEYS].join(', ')} would reach an object's prototype)`);
    checkKeys(v, where, [...path, k]);
  }
};

/** Sets `a.b.c` inside an options object, making the nested objects on the way (`limits.maxSteps=2`). */
const setPath = (target: Record<string, unknown>, keys: string[], value: unknown) => {
  let at = target;
  for (const k of keys.slice(0, -1)) {
    const next = Object.hasOwn(at, k) ? at[k] : undefined;
    at = (at[k] = isObject(next) ? next : {}) as Record<string, unknown>;
  }
  at[keys[keys.length - 1]] = value;
};

/**
 * The options sent with every question: `--options-file` (a JSON object), then `--recipe`, then each
 * `--option key=value` in order (later wins). Prototype keys and empty path parts are refused; everything else is the
 * service's to check, before the first question.
 */
export const parseOptions = (a: { file?: string; recipe?: string; pairs: string[] }): Record<string, unknown> | undefined => {
  const out: Record<string, unknown> = {};
  if (a.file) {
    const parsed = readJsonFile(a.file, CAPS.small, '--options-file');
    if (!isObject(parsed)) throw new InputRefusal(`--options-file ${a.file} must hold one JSON object, e.g. {"fewshot": "dpp", "k": 3}`);
    checkKeys(parsed, `--options-file ${a.file}`);
    Object.assign(out, parsed);
  }
  if (a.recipe) out.recipe = a.recipe;
  for (const pair of a.pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new InputRefusal(`--option takes key=value (e.g. --option k=3 or --option limits.maxSteps=2), not "${pair.slice(0, 80)}"`);
    const keys = pair.slice(0, eq).trim().split('.');
    if (keys.some((k) => !k)) throw new InputRefusal(`--option ${pair.slice(0, 80)}: an empty key`);
    const value = optionValue(pair.slice(eq + 1));
    for (const k of keys) if (FORBIDDEN_KEYS.has(k)) throw new InputRefusal(`--option ${pair.slice(0, 80)}: the key "${k}" is refused (it would reach an object's prototype, not the options)`);
    checkKeys(value, '--option', keys);
    setPath(out, keys, value);
  }
  return Object.keys(out).length ? out : undefined;
};

/** A folder name made from a set's name: what is kept of it must still tell it apart from every other set's. */
export const folderName = (name: string): string => name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);

/**
 * Refuses names that cannot be folders or that become the same folder once cleaned (`"a b"` and `"a_b"`, or two that
 * differ only in case, which a case-insensitive disk would merge): checked before the first question is asked.
 */
export const checkNames = (names: readonly string[], what: string): string[] => {
  const seen = new Map<string, string>();
  return names.map((name) => {
    const safe = folderName(name);
    if (!safe || safe === '.' || safe === '..') throw new InputRefusal(`${what} name "${name.slice(0, 80)}" cannot be a folder name`);
    const key = safe.toLowerCase();
    const other = seen.get(key);
    if (other !== undefined) throw new InputRefusal(`${what} names "${other.slice(0, 80)}" and "${name.slice(0, 80)}" both become the folder "${safe}": rename one`);
    seen.set(key, name);
    return safe;
  });
};

export interface SweepSet {
  name: string;
  /** The set's mode, when it names one (a system is a mode and its options). */
  mode?: string;
  options: Record<string, unknown>;
}

/**
 * `--sweep FILE`: a JSON list of option sets (named 1, 2, … in order) or an object of named sets; each runs as its
 * own evaluation on the same questions, into `<out>/<name>`, with its options on top of the common ones. A set's
 * `mode` key is its mode, not an option (`{"closed-book": {"mode": "parametric"}, "agent": {"mode": "agent", "k": 5}}`).
 */
export const readSweep = (file: string): SweepSet[] => {
  const parsed = readJsonFile(file, CAPS.small, '--sweep');
  const entries: [string, unknown][] = Array.isArray(parsed) ? parsed.map((v, i) => [String(i + 1), v]) : isObject(parsed) ? Object.entries(parsed) : [];
  if (!entries.length) throw new InputRefusal(`--sweep ${file} needs a non-empty JSON list of option objects, or an object of named option objects`);
  const names = checkNames(entries.map(([name]) => name), `--sweep ${file}: set`);
  return entries.map(([name, set], i) => {
    if (!isObject(set)) throw new InputRefusal(`--sweep ${file}: set "${name.slice(0, 80)}" is not a JSON object of options`);
    checkKeys(set, `--sweep ${file}: set "${name.slice(0, 80)}"`);
    const { mode, ...options } = set;
    if (mode !== undefined && (typeof mode !== 'string' || !/^[a-z][a-z0-9-]{0,40}$/.test(mode))) throw new InputRefusal(`--sweep ${file}: set "${name.slice(0, 80)}" has a "mode" that is not a mode name`);
    return { name: names[i], ...(mode ? { mode: mode as string } : {}), options };
  });
};
