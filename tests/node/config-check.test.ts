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

describe('a credential never in clear (issue 41, item 2)', () => {
  it('npm run dev and npm run deploy refuse plain http to a Wikimedia host, naming the variable and the https URL', () => {
    const url = 'WIKIPEDIA_API_URL:http://en.wikipedia.org/w/api.php';
    for (const r of [run('cli/dev.mjs', ['--var', url, '--port', '1']), run('cli/deploy.mjs', ['--env', 'mintaka', '--dry-run', '--var', url])]) {
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('WIKIPEDIA_API_URL: http://en.wikipedia.org/w/api.php is plain HTTP to a Wikimedia host, where WIKIMEDIA_ACCESS_TOKEN is sent');
      expect(r.stderr).toContain('write https://en.wikipedia.org/w/api.php');
    }
  });

  it('npm run deploy cannot see secrets, so a plain-http model server is refused as if LLM_API_KEY were set', () => {
    const r = run('cli/deploy.mjs', ['--env', 'mintaka', '--var', 'LLM_PROVIDER:openai', '--var', 'LLM_BASE_URL:http://models.example.org/v1']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'npm run deploy: not deploying: LLM_BASE_URL: http://models.example.org/v1 is plain HTTP: LLM_API_KEY, if it is set as a secret (not visible here), would travel in clear. Use https://models.example.org/v1',
    );
    // A model server on https passes this check (the deploy still stops for the placeholder database id).
    const https = run('cli/deploy.mjs', ['--env', 'mintaka', '--var', 'LLM_PROVIDER:openai', '--var', 'LLM_BASE_URL:https://models.example.org/v1']);
    expect(https.stderr).not.toContain('LLM_BASE_URL: https');
    expect(https.stderr).not.toContain('would travel in clear');
  });
});

