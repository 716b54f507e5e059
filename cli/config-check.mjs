// Checks the Worker's configuration before wrangler starts (`npm run dev`) or uploads (`npm run deploy`), with the
// same zod schema the Worker uses (src/config.ts), so a bad var stops the command with every problem named instead
// of surfacing as a 500 on the first request.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** KEY=VALUE lines as wrangler reads `.dev.vars` / `--env-file` files (comments and blank lines skipped, quotes removed). */
export const parseEnvFile = (text) => {
  const out = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    out[m[1]] = m[2].replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
};

/** The values of wrangler's repeatable/option flags in an argument list: `--flag value` or `--flag=value`. */
export const flagValues = (args, flag) => {
  const out = [];
  args.forEach((a, i) => {
    if (a === flag && i + 1 < args.length) out.push(args[i + 1]);
    else if (a.startsWith(`${flag}=`)) out.push(a.slice(flag.length + 1));
  });
  return out;
};

/** The config file these arguments name (`--config`, else wrangler.toml). */
export const configPath = (args) => resolve(ROOT, flagValues(args, '--config')[0] ?? 'wrangler.toml');

/** The environment named by `--env` / `-e` (else CLOUDFLARE_ENV, which wrangler reads too), if any. */
export const envOf = (args) => flagValues(args, '--env')[0] ?? flagValues(args, '-e')[0] ?? (process.env.CLOUDFLARE_ENV || undefined);

/** The `[env.<name>]` sections of a wrangler.toml, in file order. */
export const environmentNames = (toml) => [...toml.matchAll(/^\[env\.([A-Za-z0-9_-]+)\]\s*$/gm)].map((m) => m[1]);

/**
 * The environment a mistyped name most likely meant: the closest by edit distance (case ignored), or one that
 * contains it or is contained in it; undefined when nothing is close.
 */
export const nearestName = async (name, names) => {
  const { levenshtein } = await tsImport('../src/fewshot/levenshtein.ts', import.meta.url);
  const wanted = name.toLowerCase();
  const scored = names.map((n) => {
    const lower = n.toLowerCase();
    const contains = wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower));
    return { n, d: contains ? 0.5 : levenshtein(wanted, lower) };
  });
  const best = scored.sort((a, b) => a.d - b.d)[0];
  return best && best.d <= Math.max(2, Math.floor(wanted.length / 3)) ? best.n : undefined;
};

/**
 * An `--env` that wrangler.toml does not define: the nearest name, the environments that exist, and exit 1 (wrangler
 * would throw its UserError with a Node stack trace instead).
 */
const exitOnUnknownEnv = async (args, what) => {
  const env = envOf(args);
  if (env === undefined) return;
  const names = environmentNames(readFileSync(configPath(args), 'utf8'));
  if (names.includes(env)) return;
  const nearest = await nearestName(env, names);
  console.error(`${what}: there is no environment "${env}" in ${flagValues(args, '--config')[0] ?? 'wrangler.toml'}.${nearest ? ` Did you mean "${nearest}"?` : ''}`);
  console.error(`The environments are: ${names.join(', ')}. Example: ${what} -- --env ${nearest ?? (names.includes('mintaka') ? 'mintaka' : names[0])}`);
  process.exit(1);
};

/**
 * The vars wrangler would hand the Worker for these command-line arguments: wrangler.toml's vars (of `--env`), then the
 * local env files (`--env-file`, else `.dev.vars`, else `.env`) when `local`, then `--var KEY:VALUE`.
 */
export const collectVars = async (args, { local }) => {
  const { unstable_readConfig } = await import('wrangler');
  const env = envOf(args);
  const config = unstable_readConfig({ config: configPath(args), env });
  const vars = Object.fromEntries(Object.entries(config.vars ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  if (local) {
    const files = flagValues(args, '--env-file');
    const fallback = ['.dev.vars', '.env'].map((f) => resolve(ROOT, f)).find((f) => existsSync(f));
    for (const file of files.length ? files : fallback ? [fallback] : []) Object.assign(vars, parseEnvFile(readFileSync(file, 'utf8')));
  }
  for (const pair of flagValues(args, '--var')) {
    const at = pair.indexOf(':');
    if (at > 0) vars[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { env, vars };
};

/** The Worker's parsed Config for these vars (src/config.ts's loadConfig); throws its ConfigError when invalid. */
export const parsedConfig = async (vars) => {
  const { loadConfig } = await tsImport('../src/config.ts', import.meta.url);
  return loadConfig(vars);
};

/** Every configuration problem for these vars, as `NAME: what is wrong` lines (empty when the config is valid). */
export const configProblems = async (vars) => {
  const { loadConfig, ConfigError } = await tsImport('../src/config.ts', import.meta.url);
  try {
    loadConfig(vars);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
};

/** Prints the problems and exits non-zero; returns quietly when the configuration is valid. */
export const checkOrExit = async (args, { local, what }) => {
  await exitOnUnknownEnv(args, what);
  const { env, vars } = await collectVars(args, { local });
  const problems = await configProblems(vars);
  if (!problems.length) return;
  console.error(`${what}: the configuration${env ? ` of environment "${env}"` : ''} is invalid:`);
  for (const p of problems) console.error(`  - ${p}`);
  console.error('Fix the vars in wrangler.toml, .dev.vars or the --var flags (see docs/CONFIGURATION.md).');
  process.exit(1);
};
