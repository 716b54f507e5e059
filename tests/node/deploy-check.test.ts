import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { placeholderLines, placeholderReport } from '../../cli/deploy-resources.mjs';

/** What a person typing `npm run deploy` sees before anything is bundled or uploaded. */
const ROOT = resolve(import.meta.dirname, '../..');
const deploy = (...args: string[]) =>
  spawnSync(process.execPath, ['cli/deploy.mjs', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
  });
const ENVS = [...readFileSync(join(ROOT, 'wrangler.toml'), 'utf8').matchAll(/^\[env\.([a-z0-9_-]+)\]\s*$/gm)].map((m) => m[1]);

describe('npm run deploy before uploading', () => {
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
    // Nothing was bundled: wrangler never started.
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/custom build|Total Upload/);
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
