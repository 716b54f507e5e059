import * as z from 'zod';

/** A benchmark file that is not what its loader expects; the CLIs prefix the file name. */
export class BenchmarkFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchmarkFileError';
  }
}

const kindOf = (v: unknown) => (Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/**
 * Where JSON.parse failed, never what it read: its message quotes the text (a wrong file's first bytes, e.g.
 * /etc/passwd's, would be echoed to the terminal and into logs).
 */
export const jsonProblem = (e: unknown): string => {
  const message = e instanceof Error ? e.message : String(e);
  if (/unexpected end/i.test(message)) return 'it ends too early';
  const at = /position (\d+)/.exec(message)?.[1];
  return at ? `at character ${at}` : 'an unexpected character';
};

export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new BenchmarkFileError(`not valid JSON (${jsonProblem(e)})`);
  }
};

/**
 * Checks every record of a benchmark file against the fields its loader reads, so a wrong or truncated file stops
 * with the record and the field (`question 3 (id "a9"): answer.answerType: expected string, received undefined`)
 * instead of a TypeError deep inside a loader. Other fields pass through untouched.
 */
export const checkRecords = <T>(records: unknown, schema: z.ZodType, what: string, idOf: (r: Record<string, unknown>) => unknown = () => undefined): T[] => {
  if (!Array.isArray(records)) throw new BenchmarkFileError(`expected ${what}, found ${kindOf(records)}`);
  records.forEach((record, i) => {
    const checked = schema.safeParse(record);
    if (checked.success) return;
    const issue = checked.error.issues[0]!;
    const id = record && typeof record === 'object' ? idOf(record as Record<string, unknown>) : undefined;
    throw new BenchmarkFileError(
      `question ${i + 1}${id !== undefined ? ` (id ${JSON.stringify(id)})` : ''}: ${issue.path.join('.') || 'the record'}: ${issue.message} — is this the right benchmark's file?`,
    );
  });
  return records as T[];
};

export const idish = z.union([z.string(), z.number()]);
