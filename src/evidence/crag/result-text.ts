/** What one KG answer may take of a prompt: about a page of text. */
export const MAX_RESULT_CHARS = 1500;

/**
 * A KG answer's `result` as compact JSON text of prompt size: long arrays keep their first ten items, objects their
 * first thirty keys and four levels, strings their first 400 characters, and the whole is cut at
 * {@link MAX_RESULT_CHARS}. This text is what a run records and what its citations are checked against, so it is
 * exactly what the model was shown. A price history of a year or a film's full cast would otherwise fill the prompt.
 * @example resultText(['Lake Baikal', 'Baikal seal']) // '["Lake Baikal","Baikal seal"]'
 */
export const resultText = (value: unknown): string => {
  const shrink = (v: unknown, depth: number): unknown => {
    if (Array.isArray(v)) return v.slice(0, 10).map((x) => shrink(x, depth + 1));
    if (v && typeof v === 'object') {
      if (depth > 3) return '…';
      return Object.fromEntries(Object.entries(v).slice(0, 30).map(([k, x]) => [k, shrink(x, depth + 1)]));
    }
    return typeof v === 'string' && v.length > 400 ? `${v.slice(0, 400)}…` : v;
  };
  const text = JSON.stringify(shrink(value, 0)) ?? 'null';
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text;
};
