// @module-tag slow
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every deploy environment must bundle and bind correctly from a clean clone: `npm run deploy -- --dry-run --env <name>`
 * (our checks, then `wrangler deploy --dry-run`) in a copy of the tracked files only (no src/generated, no .wrangler),
 * with nothing run first and no login.
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

/** `npm run deploy -- --dry-run --env <env>`: our checks, then wrangler's dry run into OUT. */
const dryRun = (env: string) =>
  spawnSync(process.execPath, ['cli/deploy.mjs', '--dry-run', '--env', env, '--outdir', join(OUT, env), '--metafile', join(OUT, `${env}.meta.json`)], {
    cwd: CLONE,
    encoding: 'utf8',
    timeout: 110_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1', FORCE_COLOR: '0', CLOUDFLARE_ENV: '' },
  });

describe.sequential('npm run deploy --dry-run per environment, from a clean clone', () => {
  it('starts from a copy without the generated data bundle', () => {
    expect(existsSync(join(CLONE, 'src/generated'))).toBe(false);
    expect(existsSync(join(CLONE, 'wrangler.toml'))).toBe(true);
    expect(ENVS.map(([e]) => e)).toEqual(expect.arrayContaining(['production', 'mintaka', 'qald9plus', 'compmix', 'hybridqa', 'crag']));
  });

  // What is asserted is our own summary of the config wrangler reads (cli/deploy-resources.mjs) and the files the build
  // wrote, not wrangler's console wording, which changes between its releases.
  for (const [env, variant] of ENVS) {
    it(`--env ${env} builds with live evidence, its own index, the AI binding and DEFAULT_VARIANT=${variant}, and warns without a contact`, () => {
      const run = dryRun(env);
      const out = `${run.stdout}\n${run.stderr}`;
      expect(run.status, out.slice(-2_000)).toBe(0);
      const summary = run.stderr.split('\n').find((l) => l.startsWith(`npm run deploy: environment ${env} → `)) ?? '';
      expect(summary, run.stderr.slice(0, 2_000)).toContain(`EVIDENCE=live, LLM_PROVIDER=workers-ai, EMBEDDING_PROVIDER=workers-ai, DEFAULT_VARIANT=${variant}`);
      for (const binding of ['AI (Workers AI)', `VECTORIZE (humaniq-${env})`, 'RUNS (RunObject)', 'RATE_LIMITER (RateLimiter)', 'POLITENESS_GATE (PolitenessGate)']) {
        expect(summary).toContain(binding);
      }
      expect(summary).toMatch(/DB \(humaniq[-a-z0-9]*\)/);
      expect(run.stderr).toContain('npm run deploy: warning: EVIDENCE=live sends requests to en.wikipedia.org, query.wikidata.org, www.wikidata.org, and WIKIMEDIA_CONTACT');
      expect(run.stderr).toContain(`[env.${env}.vars]`);
      expect(run.stderr).not.toContain('lacks');
      // The [build] step ran (the data bundle exists now) and the Worker was bundled.
      expect(existsSync(join(CLONE, 'src/generated/bundle.ts'))).toBe(true);
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
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('there is no environment "no-such-variant"');
    expect(existsSync(join(OUT, 'no-such-variant'))).toBe(false);
  });
});
