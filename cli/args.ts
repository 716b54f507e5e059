import { parseArgs as parseNodeArgs } from 'node:util';

/** What node:util's parser hands back for one flag. */
type Raw = string | boolean | string[] | undefined;

/**
 * One command-line flag: how node:util parses it, its line in `--help`, and `read`, which turns the raw value into the
 * flag's own type (a number, a choice, a list) or throws a FlagError naming what is wrong. The parsed arguments are
 * typed from these declarations, so a CLI never re-checks `typeof args.x === 'string'`.
 */
export interface Flag<T> {
  type: 'string' | 'boolean';
  value?: string;
  help: string;
  multiple?: boolean;
  read: (raw: Raw, name: string) => T;
}

/** A value that does not fit its flag; the message names the flag. */
export class FlagError extends Error {}

type Common = { value?: string; help: string };

const str = (raw: Raw): string | undefined => (typeof raw === 'string' ? raw : undefined);

const integer = (raw: string, name: string, min: number, max: number): number => {
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new FlagError(`--${name} must be a whole number${max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : min === 1 ? ' above 0' : ` of at least ${min}`}, not "${raw.slice(0, 40)}"`);
  }
  return n;
};

/** The flag kinds the CLIs use; each returns a Flag whose `read` gives the typed value. */
export const flag = {
  text: (o: Common): Flag<string | undefined> => ({ type: 'string', ...o, read: (raw) => str(raw) }),
  required: (o: Common): Flag<string> => ({
    type: 'string',
    ...o,
    read: (raw, name) => {
      const v = str(raw);
      if (v === undefined || !v.trim()) throw new FlagError(`--${name} <${o.value ?? 'value'}> is required`);
      return v;
    },
  }),
  int: (o: Common & { min?: number; max?: number }): Flag<number | undefined> => ({
    type: 'string',
    ...o,
    read: (raw, name) => (str(raw) === undefined ? undefined : integer(str(raw)!, name, o.min ?? 1, o.max ?? Number.MAX_SAFE_INTEGER)),
  }),
  number: (o: Common & { min?: number }): Flag<number | undefined> => ({
    type: 'string',
    ...o,
    read: (raw, name) => {
      const v = str(raw);
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!v.trim() || !Number.isFinite(n) || n < (o.min ?? -Infinity)) throw new FlagError(`--${name} must be a number${o.min !== undefined ? ` of at least ${o.min}` : ''}, not "${v.slice(0, 40)}"`);
      return n;
    },
  }),
  choice: <C extends string>(choices: readonly C[], o: Common & { required?: boolean }): Flag<C | undefined> => ({
    type: 'string',
    ...o,
    read: (raw, name) => {
      const v = str(raw);
      if (v === undefined && !o.required) return undefined;
      if (!choices.includes(v as C)) throw new FlagError(`--${name} must be one of ${choices.join(', ')}${v === undefined ? '' : `, not "${v.slice(0, 40)}"`}`);
      return v as C;
    },
  }),
  switch: (o: { help: string }): Flag<boolean> => ({ type: 'boolean', ...o, read: (raw) => raw === true }),
  list: (o: Common): Flag<string[]> => ({ type: 'string', multiple: true, ...o, read: (raw) => (Array.isArray(raw) ? raw.map(String) : []) }),
};

export type Flags = Record<string, Flag<unknown>>;

/** The parsed arguments, typed from the flags' declarations. */
export type ArgsOf<F extends Flags> = { [K in keyof F]: ReturnType<F[K]['read']> };

/** A rule between flags, checked after each flag is read: `broken` says whether the arguments break it. */
export interface Rule<A> {
  broken: (args: A) => boolean;
  message: string;
}

export interface CliSpec<F extends Flags> {
  /** How to call it, e.g. `npm run eval --`. */
  command: string;
  summary: string;
  flags: F;
  /** Every rule between flags, in one place. */
  rules?: Rule<ArgsOf<F>>[];
  /** Arguments that are not flags (e.g. compare's two folders): how many, and their name in the usage text. */
  positionals?: { count: number; name: string };
  examples?: string[];
}

export const fail = (message: string): never => {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
};

/** The `--help` text, made from the flags so it cannot drift from what is accepted. */
export const usage = (spec: CliSpec<Flags>): string => {
  const rows = Object.entries(spec.flags).map(([name, f]) => [`--${name}${f.type === 'string' ? ` <${f.value ?? 'value'}>` : ''}${f.multiple ? ' …' : ''}`, f.help]);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    `usage: ${spec.command}${spec.positionals ? ` ${spec.positionals.name}` : ''} [flags]`,
    '',
    spec.summary,
    '',
    'flags:',
    ...rows.map(([left, help]) => `  ${left.padEnd(width)}${help}`),
    `  ${'--help'.padEnd(width)}this text`,
    ...(spec.examples?.length ? ['', 'examples:', ...spec.examples.map((e) => `  ${e}`)] : []),
    '',
  ].join('\n');
};

/**
 * Reads argv against the declared flags (node:util's strict parser), then types each value and checks the rules
 * between flags. Throws FlagError naming the first problem; `--help` is the caller's to handle (parseCli does).
 */
export const readArgs = <F extends Flags>(argv: string[], spec: CliSpec<F>): ArgsOf<F> & { positionals: string[] } => {
  let parsed: { values: Record<string, Raw>; positionals: string[] };
  try {
    parsed = parseNodeArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(spec.flags).map(([name, f]) => [name, { type: f.type, ...(f.multiple ? { multiple: true } : {}) }])),
      strict: true,
      allowPositionals: !!spec.positionals,
    }) as { values: Record<string, Raw>; positionals: string[] };
  } catch (err) {
    throw new FlagError((err as Error).message.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option/, 'unknown flag'));
  }
  if (spec.positionals && parsed.positionals.length !== spec.positionals.count) {
    throw new FlagError(`give exactly ${spec.positionals.count} ${spec.positionals.name}, not ${parsed.positionals.length}`);
  }
  const args = Object.fromEntries(Object.entries(spec.flags).map(([name, f]) => [name, f.read(parsed.values[name], name)])) as ArgsOf<F>;
  const broken = (spec.rules ?? []).find((r) => r.broken(args));
  if (broken) throw new FlagError(broken.message);
  return { ...args, positionals: parsed.positionals };
};

/**
 * Strict, typed flags: `--help` prints the usage and exits 0; an unknown flag, a missing or malformed value, a stray
 * argument or a broken rule between flags exits 2 naming it.
 *
 * @example
 * const args = parseCli(process.argv.slice(2), { command: 'npm run score --', summary: 'Scores predictions.',
 *   flags: { gold: flag.required({ value: 'file', help: 'gold answers' }), all: flag.switch({ help: 'every question' }) } });
 * args.gold; // string
 */
export const parseCli = <F extends Flags>(argv: string[], spec: CliSpec<F>): ArgsOf<F> & { positionals: string[] } => {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage(spec as unknown as CliSpec<Flags>));
    process.exit(0);
  }
  try {
    return readArgs(argv, spec);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    return fail(`${err.message}\nrun \`${spec.command} --help\` for the flags`);
  }
};

/** Runs `read` on a named file; any error ends the CLI with the file's name in front of the message (never a stack). */
export const fromFile = <T>(file: string, read: () => T): T => {
  try {
    return read();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return fail(`${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
};
