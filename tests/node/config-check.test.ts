// @module-tag slow
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** A bad var stops `npm run dev` and `npm run deploy` before wrangler starts, with every problem named. */
const ROOT = resolve(import.meta.dirname, '../..');
const run = (script: string, args: string[]) =>
  spawnSync(process.execPath, [script, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
  });

describe('configuration checked at start', () => {
  it('npm run dev exits non-zero naming every bad var, and never prints Ready', () => {
    const r = run('cli/dev.mjs', ['--var', 'MAX_STEPS:abc', '--var', 'EVIDENCE:nope', '--port', '1']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('MAX_STEPS: must be a positive whole number');
    expect(r.stderr).toContain('EVIDENCE');
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/Ready/);
  });

  it('npm run deploy checks the environment it deploys', () => {
    const r = run('cli/deploy.mjs', ['--env', 'crag', '--dry-run', '--var', 'LLM_PROVIDER:openai']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('environment "crag"');
    expect(r.stderr).toContain('LLM_BASE_URL is required when LLM_PROVIDER=openai');
  });
});
