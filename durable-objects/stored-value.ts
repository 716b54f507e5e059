/**
 * What fits in one value of a Durable Object's SQLite. The platform refuses a string or blob over 2 MB (and a row
 * over 2 MB) with SQLITE_TOOBIG; we keep a margin for the row's other columns so that error never reaches a user.
 */
export const MAX_STORED_BYTES = 1_900_000;

/** A run whose state no longer fits in storage; the run fails with this code instead of a storage internal. */
export class StoredValueTooLarge extends Error {
  readonly code = 'run_state_too_large';
  constructor(what: string, bytes: number) {
    super(`the run's ${what} reached ${bytes} bytes, more than one stored value holds (${MAX_STORED_BYTES}); the run stops here`);
    this.name = 'StoredValueTooLarge';
  }
}

/** UTF-8 length without encoding a copy; the common case (clearly short) costs nothing. */
export const utf8Bytes = (s: string): number => {
  if (s.length * 3 <= MAX_STORED_BYTES) return s.length; // a lower bound is enough to know it fits
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
};

const fits = (s: string) => s.length * 3 <= MAX_STORED_BYTES || utf8Bytes(s) <= MAX_STORED_BYTES;

/** The JSON of a value that must be stored whole (strategy state, run meta), or StoredValueTooLarge. */
export const storable = (json: string, what: string): string => {
  if (!fits(json)) throw new StoredValueTooLarge(what, utf8Bytes(json));
  return json;
};

const note = (cut: number) => ` […${cut} characters cut: one stored event holds at most ${MAX_STORED_BYTES} bytes]`;

/**
 * An event's JSON cut down to fit: its long strings (a runaway thought, a huge observation, the same answer under
 * several keys) are cut to one common length, each with a note saying so, until the whole fits. Events are what users
 * read, so a shortened one beats a failed run.
 */
export const fitEvent = (data: unknown, encode: (value: unknown) => string): string => {
  let json = encode(data);
  if (fits(json)) return json;
  const copy = structuredClone(data);
  let target = MAX_STORED_BYTES;
  for (let round = 0; round < 8; round++) {
    const long = longStrings(copy);
    if (!long.length) break;
    // Bytes the rest of the JSON takes; the long strings share what is left (escaping and UTF-8 are caught next round).
    const rest = utf8Bytes(json) - long.reduce((n, l) => n + l.text.length, 0);
    const level = levelFor(long.map((l) => l.text.length), target - rest - long.length * 120);
    for (const l of long) {
      if (l.text.length > level) l.holder[l.key] = l.text.slice(0, level) + note(l.text.length - level);
    }
    json = encode(copy);
    if (fits(json)) return json;
    target -= Math.max(1_000, utf8Bytes(json) - MAX_STORED_BYTES);
  }
  throw new StoredValueTooLarge('event', utf8Bytes(json));
};

/** The largest length L such that the strings, each cut to L, take at most `budget` characters in all. */
const levelFor = (lengths: number[], budget: number): number => {
  const sorted = [...lengths].sort((a, b) => a - b);
  let spent = 0;
  for (let i = 0; i < sorted.length; i++) {
    const left = sorted.length - i;
    if (spent + sorted[i]! * left > budget) return Math.max(0, Math.floor((budget - spent) / left));
    spent += sorted[i]!;
  }
  return sorted[sorted.length - 1] ?? 0;
};

/** Every string over 1,000 characters in a JSON value, with where it sits. */
const longStrings = (root: unknown) => {
  const found: Array<{ holder: Record<string | number, unknown>; key: string | number; text: string }> = [];
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const holder = node as Record<string | number, unknown>;
    for (const key of Object.keys(holder)) {
      const v = holder[key];
      if (typeof v === 'string' && v.length > 1_000) found.push({ holder, key, text: v });
      else if (v && typeof v === 'object') stack.push(v);
    }
  }
  return found;
};
