// @module-tag slow
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contactLines, DURABLE_OBJECTS, placeholderLines, placeholderReport } from '../../cli/deploy-resources.mjs';

/** What a person typing `npm run deploy` sees before anything is bundled or uploaded. */
const ROOT = resolve(import.meta.dirname, '../..');
const deploy = (...args: string[]) =>
  spawnSync(process.execPath, ['cli/deploy.mjs', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CLOUDFLARE_ENV: '' },
  });
const TOML = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
const ENVS = [...readFileSync(join(ROOT, 'wrangler.toml'), 'utf8').matchAll(/^\[env\.([a-z0-9_-]+)\]\s*$/gm)].map((m) => m[1]);

describe('npm run deploy before uploading', () => {
  it('a mistyped --env suggests the nearest environment', () => {
    const run = deploy('--dry-run', '--env', 'mintak');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('there is no environment "mintak" in wrangler.toml. Did you mean "mintaka"?');
    expect(run.stderr).toContain('Example: npm run deploy -- --env mintaka');
    expect(deploy('--dry-run', '--env', 'Production').stderr).toContain('Did you mean "production"?');
  });

  it('an unknown --env names the environments that exist and exits 1, without a stack trace', () => {
    const run = deploy('--dry-run', '--env', 'nosuch');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('there is no environment "nosuch" in wrangler.toml');
    expect(ENVS).toEqual(expect.arrayContaining(['production', 'mintaka', 'crag']));
    expect(run.stderr).toContain(`The environments are: ${ENVS.join(', ')}`);
    expect(run.stderr).not.toMatch(/UserError|^\s+at /m);
  });

  it("refuses to deploy an environment whose D1 database_id is wrangler.toml's placeholder, with the commands that create it", () => {
    const run = deploy('--env', 'mintaka');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('not deploying: DB → D1 database "humaniq-mintaka" has the placeholder database_id 00000000-0000-0000-0000-000000000000');
    expect(run.stderr).toContain('npx wrangler d1 create humaniq-mintaka   # then put the printed database_id into [[env.mintaka.d1_databases]]');
    expect(run.stderr).toContain('npx wrangler vectorize create humaniq-mintaka');
    expect(run.stderr).toContain('npx wrangler r2 bucket create humaniq-mintaka-archives');
    // The shipped file names nobody to Wikimedia: a live deploy without a contact is refused too, with the line to add.
    expect(run.stderr).toContain('npm run deploy: not deploying: EVIDENCE=live sends requests to en.wikipedia.org');
    expect(run.stderr).toContain('WIKIMEDIA_CONTACT = "ops@your-lab.example"');
    expect(run.stderr).toContain('npm run deploy -- --env mintaka --var WIKIMEDIA_CONTACT:ops@your-lab.example');
  });

  it('a dry run says the same and goes on; a real database_id passes', () => {
    const config = {
      d1_databases: [{ binding: 'DB', database_name: 'humaniq-crag', database_id: '00000000-0000-0000-0000-000000000000' }],
      vectorize: [{ binding: 'VECTORIZE', index_name: 'humaniq-crag' }],
      r2_buckets: [],
    };
    const lines = placeholderLines(placeholderReport(config, 'crag'), { what: 'npm run deploy', dryRun: true });
    expect(lines[0]).toContain('this configuration cannot be deployed yet');
    expect(lines.at(-1)).toBe('The dry run goes on: it uploads nothing.');
    const real = { ...config, d1_databases: [{ ...config.d1_databases[0], database_id: '6f1c2a9e-3b7d-4e21-9c55-0a8d1e2f3b4c' }] };
    expect(placeholderLines(placeholderReport(real, 'crag'), { what: 'npm run deploy', dryRun: false })).toEqual([]);
  });
});

/** wrangler.toml with each of `cuts` removed, written to a temp folder: what `npm run deploy -- --config <copy>` reads. */
const TMP = mkdtempSync(join(tmpdir(), 'humaniq-deploy-check-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
const copyWithout = (name: string, ...cuts: Array<string | RegExp>) => {
  let text = TOML;
  for (const cut of cuts) {
    const before = text;
    text = text.replace(cut, '');
    expect(text, `${String(cut)} is in wrangler.toml`).not.toBe(before);
  }
  const file = join(TMP, `${name}.toml`);
  writeFileSync(file, text);
  return file;
};
/** A dry run of that copy; `--outdir` shows whether wrangler bundled anything. */
const dryRunOf = (file: string, env: string, ...extra: string[]) => {
  const outdir = join(TMP, `${env}-out-${Math.random().toString(36).slice(2)}`);
  const run = deploy('--dry-run', '--env', env, '--config', file, '--outdir', outdir, ...extra);
  return { ...run, bundled: existsSync(outdir) };
};

describe('npm run deploy checks every binding the vars need, dry runs included', () => {
  it('refuses an environment whose vars use Workers AI without the AI binding, with the lines to add', () => {
    const run = dryRunOf(copyWithout('no-ai', '[env.mintaka.ai]\nbinding = "AI"\n'), 'mintaka');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm run deploy: not deploying: no-ai.toml (environment "mintaka") lacks a binding the Worker needs:');
    expect(run.stderr).toContain('AI: LLM_PROVIDER=workers-ai and EMBEDDING_PROVIDER=workers-ai need the Workers AI binding AI');
    expect(run.stderr).toMatch(/Add to no-ai\.toml:\n\s+\[env\.mintaka\.ai\]\n\s+binding = "AI"\n/);
    // A dry run that cannot deploy does not promise to go on, and wrangler never bundled.
    expect(run.stderr).not.toContain('The dry run goes on');
    expect(run.bundled).toBe(false);
  });

  it('refuses a removed D1 binding with its section to add', () => {
    const d1 = /\[\[env\.crag\.d1_databases\]\]\nbinding = "DB"\n[^[]*/;
    const run = dryRunOf(copyWithout('no-d1', d1), 'crag');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('DB: the run index, idempotency keys, saved demonstrations and the corpus live in the D1 database DB');
    expect(run.stderr).toMatch(/\[\[env\.crag\.d1_databases\]\]\n\s+binding = "DB"\n\s+database_name = "humaniq-crag"\n\s+database_id = "<the id `npx wrangler d1 create` prints>"\n\s+migrations_dir = "migrations"/);
    expect(run.bundled).toBe(false);
  });

  it('refuses a Durable Object bound to the wrong class and one without a migration', () => {
    const wrongClass = TOML.replace('[[env.qald9plus.durable_objects.bindings]]\nname = "RATE_LIMITER"\nclass_name = "RateLimiter"', '[[env.qald9plus.durable_objects.bindings]]\nname = "RATE_LIMITER"\nclass_name = "AgentRun"');
    const file = join(TMP, 'wrong-class.toml');
    writeFileSync(file, wrongClass.replace('[[env.qald9plus.migrations]]\ntag = "v2"\nnew_sqlite_classes = ["PolitenessGate"]\n', ''));
    const run = dryRunOf(file, 'qald9plus');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('lacks 2 bindings');
    expect(run.stderr).toContain('RATE_LIMITER: every /v1 and /mcp request passes the per-key rate limiter: bind RATE_LIMITER to class RateLimiter (it names class AgentRun)');
    // Appended after the v3 rename that stays: a tag no migration uses yet.
    expect(run.stderr).toMatch(/PolitenessGate: no migration creates PolitenessGate[^\n]*\n\s+\[\[env\.qald9plus\.migrations\]\]\n\s+tag = "v4"\n\s+new_sqlite_classes = \["PolitenessGate"\]/);
  });

  it('an OpenAI-compatible model with local embeddings needs no AI binding, and a given contact silences the warning', () => {
    // Without AI and without DB: only DB is missing, and that stops the run before wrangler bundles anything.
    const file = copyWithout('openai-no-ai', `[env.mintaka.ai]\nbinding = "AI"\n`, /\[\[env\.mintaka\.d1_databases\]\]\nbinding = "DB"\n[^[]*/);
    const run = dryRunOf(file, 'mintaka', '--var', 'LLM_PROVIDER:openai', '--var', 'LLM_BASE_URL:http://10.0.0.5:8000/v1', '--var', 'EMBEDDING_PROVIDER:local', '--var', 'WIKIMEDIA_CONTACT:ops@example.org');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm run deploy: environment mintaka → Worker humaniq-mintaka: EVIDENCE=live, LLM_PROVIDER=openai, EMBEDDING_PROVIDER=local');
    expect(run.stderr).toContain('lacks a binding the Worker needs:\n  - DB:');
    expect(run.stderr).not.toContain('  - AI:');
    expect(run.stderr).not.toContain('WIKIMEDIA_CONTACT (how Wikimedia reaches');
    expect(run.bundled).toBe(false);
  });

  it('a live deploy to a mirror of your own needs no Wikimedia contact; the snapshot needs none either', () => {
    const opts = { what: 'npm run deploy', env: 'crag', configFile: 'wrangler.toml', dryRun: false };
    expect(contactLines({ EVIDENCE: 'live' }, [], opts)).toEqual([]);
    expect(contactLines({ EVIDENCE: 'static' }, ['en.wikipedia.org'], opts)).toEqual([]);
    expect(contactLines({ EVIDENCE: 'live', WIKIMEDIA_CONTACT: 'ops@example.org' }, ['en.wikipedia.org'], opts)).toEqual([]);
    expect(contactLines({ EVIDENCE: 'live' }, ['en.wikipedia.org'], opts)[0]).toContain('not deploying');
  });

  it('knows every Durable Object the Worker exports and the local configuration binds', () => {
    const index = readFileSync(join(ROOT, 'src/index.ts'), 'utf8');
    const exported = [...index.matchAll(/export \{ (\w+) \} from '\.\.\/durable-objects\//g)].map((m) => m[1]);
    expect(DURABLE_OBJECTS.map((d) => d.className).sort()).toEqual(exported.sort());
    const topLevel = TOML.split('[env.')[0]!;
    const bound = [...topLevel.matchAll(/\[\[durable_objects\.bindings\]\]\nname = "(\w+)"\nclass_name = "(\w+)"/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(DURABLE_OBJECTS.map((d) => `${d.name}:${d.className}`).sort()).toEqual(bound.sort());
  });
});
