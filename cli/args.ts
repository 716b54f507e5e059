import { parseArgs as parseNodeArgs } from 'node:util';

/** One command-line flag: its kind, the name of its value in the usage text, and what it does. */
export interface Flag {
  type: 'string' | 'boolean';
  value?: string;
  help: string;
  /** Repeatable: every occurrence is kept, in order (`--option a=1 --option b=2`). */
  multiple?: boolean;
}

export interface CliSpec {
  /** How to call it, e.g. `npm run eval --`. */
  command: string;
  summary: string;
  flags: Record<string, Flag>;
  examples?: string[];
}

export const fail = (message: string): never => {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
};

/** The `--help` text, made from the flags so it cannot drift from what is accepted. */
export const usage = (spec: CliSpec): string => {
  const rows = Object.entries(spec.flags).map(([name, f]) => [`--${name}${f.type === 'string' ? ` <${f.value ?? 'value'}>` : ''}${f.multiple ? ' …' : ''}`, f.help]);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    `usage: ${spec.command} [flags]`,
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
 * Strict flags with node:util's parser: `--help` prints the usage and exits 0; an unknown flag, a missing value or a
 * stray argument exits 2 naming it. Values come back as strings, switches as `true`.
 *
 * @example
 * const args = parseCli(process.argv.slice(2), { command: 'npm run score --', summary: 'Scores predictions.',
 *   flags: { gold: { type: 'string', value: 'file', help: 'gold answers' } } });
 */
export const parseCli = (argv: string[], spec: CliSpec): Record<string, string | true | string[]> => {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage(spec));
    process.exit(0);
  }
  try {
    const { values } = parseNodeArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(spec.flags).map(([name, f]) => [name, { type: f.type, ...(f.multiple ? { multiple: true } : {}) }])),
      strict: true,
      allowPositionals: false,
    });
    const out: Record<string, string | true | string[]> = {};
    for (const [k, v] of Object.entries(values)) {
      if (Array.isArray(v)) out[k] = v.map(String);
      else if (v !== undefined && v !== false) out[k] = v === true ? true : String(v);
    }
    return out;
  } catch (err) {
    const message = (err as Error).message.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option/, 'unknown flag');
    return fail(`${message}\nrun \`${spec.command} --help\` for the flags`);
  }
};

/** Runs `read` on a named file; any error ends the CLI with the file's name in front of the message. */
export const fromFile = <T>(file: string, read: () => T): T => {
  try {
    return read();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return fail(`${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
};
