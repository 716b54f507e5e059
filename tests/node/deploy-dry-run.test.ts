import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every deploy environment must bundle and bind correctly from a clean clone: `wrangler deploy --dry-run --env <name>`
 * in a copy of the tracked files only (no src/generated, no .wrangler), with nothing run first and no login.
 * Run one after another (each bundles the whole Worker; the machine is shared).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const CLONE = mkdtempSync(join(tmpdir(), 'humaniq-clone-'));
const OUT = join(CLONE, '.dry-run-out');

/** [env, DEFAULT_VARIANT] for every `[env.<name>]` in wrangler.toml, read from the file so a new variant is covered. */
const ENVS: Array<[string, string]> = [...readFileSync(join(ROOT, 'wrangler.toml'), 'utf8').matchAll(/^\[env\.([a-z0-9_-]+)\]\s*$/gm)].map((m) => {
  const env = m[1]!;
  const section = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8').split(`[env.${env}.vars]`)[1] ?? '';
  return [env, /DEFAULT_VARIANT\s*=\s*"([^"]+)"/.exec(section)?.[1] ?? '?'];
});

beforeAll(() => {
  // What `git clone` would give: the tracked and not-ignored files as they are in the work tree. Outside a git
  // checkout (a tarball), everything but what .gitignore names.
  const git = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (git.status === 0) {
    for (const f of git.stdout.split('\0').filter((f) => f && existsSync(join(ROOT, f)))) {
      mkdirSync(dirname(join(CLONE, f)), { recursive: true });
      cpSync(join(ROOT, f), join(CLONE, f));
    }
  } else {
    const ignored = new Set(['node_modules', '.wrangler', '.git', 'out', 'test-results', join('src', 'generated')]);
    cpSync(ROOT, CLONE, { recursive: true, filter: (src) => !ignored.has(relative(ROOT, src)) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(CLONE, 'node_modules'), 'dir');
});
afterAll(() => rmSync(CLONE, { recursive: true, force: true }));

const dryRun = (env: string) =>
  spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--env', env, '--outdir', join(OUT, env), '--metafile', join(OUT, `${env}.meta.json`)], {
    cwd: CLONE,
    encoding: 'utf8',
    timeout: 110_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
  });

describe.sequential('wrangler deploy --dry-run per environment, from a clean clone', () => {
  it('starts from a copy without the generated data bundle', () => {
    expect(existsSync(join(CLONE, 'src/generated'))).toBe(false);
    expect(existsSync(join(CLONE, 'wrangler.toml'))).toBe(true);
    expect(ENVS.map(([e]) => e)).toEqual(expect.arrayContaining(['production', 'mintaka', 'qald9plus', 'compmix', 'hybridqa', 'crag']));
  });

  for (const [env, variant] of ENVS) {
    it(`--env ${env} builds the data bundle, bundles with its own index, the AI binding and DEFAULT_VARIANT=${variant}`, () => {
      const run = dryRun(env);
      const out = `${run.stdout}\n${run.stderr}`;
      expect(run.status, out.slice(-2_000)).toBe(0);
      expect(out).toContain('[custom build] Running: node cli/build-bundle.mjs');
      expect(out).toContain('--dry-run: exiting now.');
      expect(out).toMatch(new RegExp(`env\\.VECTORIZE \\(humaniq-${env}\\)\\s+Vectorize Index`));
      expect(out).toMatch(/env\.AI\s+AI/);
      expect(out).toMatch(/env\.AGENT_RUN \(AgentRun\)\s+Durable Object/);
      expect(out).toMatch(/env\.RATE_LIMITER \(RateLimiter\)\s+Durable Object/);
      expect(out).toMatch(/env\.DB \(humaniq[-a-z0-9]*\)\s+D1 Database/);
      expect(out).toContain(`env.DEFAULT_VARIANT ("${variant}")`);
      expect(out).toContain('env.LLM_PROVIDER ("workers-ai")');
      expect(out).toContain('env.EMBEDDING_PROVIDER ("workers-ai")');
      expect(existsSync(join(OUT, env, 'index.js'))).toBe(true);
    });
  }

  // src/zod-bundle.ts hands @hono/zod-openapi a `z` that holds only ZodType, to keep zod's locale packs out.
  it('bundles no zod locale but English, and no dependency but @hono/zod-openapi imports zod by its bare name', () => {
    const meta = JSON.parse(readFileSync(join(OUT, `${ENVS[0]![0]}.meta.json`), 'utf8')) as {
      inputs: Record<string, { imports: Array<{ path: string; original?: string }> }>;
      outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
    };
    // node_modules is a symlink into the checkout, so its files appear under a path relative to the clone.
    const pkg = (f: string) => f.replace(/^.*?node_modules\//, 'node_modules/');
    const worker = Object.values(meta.outputs).find((o) => o.entryPoint)!;
    // locales/index.js itself is a few bytes wherever a namespace import of zod (the MCP SDK's `zod/v4-mini`) names it.
    const locales = Object.entries(worker.inputs)
      .filter(([f, v]) => /zod\/v4\/locales\/(?!index\.js$)/.test(f) && v.bytesInOutput > 0)
      .map(([f]) => pkg(f));
    expect(locales).toEqual(['node_modules/zod/v4/locales/en.js']);
    const importers = Object.entries(meta.inputs)
      .filter(([f, v]) => !/^(src|durable-objects)\//.test(f) && v.imports.some((i) => (i.original ?? i.path) === 'zod'))
      .map(([f]) => pkg(f));
    expect(importers).toEqual(['node_modules/@hono/zod-openapi/dist/index.mjs']);
  });

  it('fails for an environment that does not exist, so the checks above can fail', () => {
    const run = dryRun('no-such-variant');
    expect(run.status).not.toBe(0);
  });
});
