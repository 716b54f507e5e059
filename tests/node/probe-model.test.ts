// @module-tag slow
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStub, type Stub } from '../support/openai-stub.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const AWKWARD = 'Zoë "la Tour" — 東京 & Ørsted\'s';

let stub: Stub;
let dir: string;
beforeAll(async () => {
  stub = await startStub();
  dir = mkdtempSync(join(tmpdir(), 'probe-'));
});
afterAll(async () => {
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

const probe = (args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn('npm', ['run', '-s', 'probe-model', '--', ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });

const search = (query: string, id?: string) => ({ name: 'wikisearch', arguments: { query }, ...(id ? { id } : {}) });
const textSearch = (query: string) => `I will search.\nAction: wikisearch\nAction Input: ${query}`;
/** Per question of the battery, two rounds, each the native attempt then the text one (the stub's queue order). */
const twice = (native: unknown, text: unknown) => [native, text, native, text];

describe('npm run probe-model', () => {
  it('asks the battery in both protocols, prints the rates and saves the record whose path it prints', { timeout: 120_000 }, async () => {
    stub.setScript({
      byQuestion: {
        'Eiffel Tower': { agent: twice({ tool_calls: [search('Eiffel Tower')] }, textSearch('Eiffel Tower')) },
        // The model makes one of the two calls asked for: parallel calls not honoured.
        'for Berlin and, separately': { agent: twice({ tool_calls: [search('Berlin')] }, textSearch('Berlin')) },
        // Native keeps the awkward text; the text protocol's answer loses the quotes.
        [AWKWARD]: { agent: twice({ tool_calls: [search(AWKWARD, 'a1B2c3D4e')] }, textSearch('Zoe la Tour')) },
        'Great Wall': { agent: twice({ tool_calls: [search('Great Wall of China')] }, textSearch('Great Wall of China')) },
        'capital of Japan': { agent: ['{"city": "Tokyo", "country": "Japan", "population_millions": 14}'] },
      },
    });
    const out = join(dir, 'stub.json');
    const { code, stdout, stderr } = await probe(['--base-url', stub.url, '--model', 'stub', '--repeats', '2', '--out', out]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`saved ${out}`);
    expect(stdout).toMatch(/native calls valid 75 %.*two calls in one turn 0 %.*JSON schema valid 100 %/);
    const record = JSON.parse(readFileSync(out, 'utf8'));
    expect(record).toMatchObject({ model: 'stub', server: new URL(stub.url).origin, repeats: 2 });
    expect(record.summary.native).toMatchObject({ callValidity: 0.75, parallelHonoured: 0, quotesValidity: 1, streamedValidity: 1, jsonSchemaValidity: 1 });
    // Text: the parallel task's first call is right, the quotes task's is not.
    expect(record.summary.text).toMatchObject({ validity: 0.75, jsonValidity: 1 });
    expect(record.recommends).toEqual({ tools: false, parallel: false, responseFormat: true });
    expect(record.attempts).toHaveLength(20);
    // The streamed task was asked for a stream; the schema task sent response_format.
    expect(stub.requests.some((r) => r.body.stream === true && r.body.tools)).toBe(true);
    expect(stub.requests.some((r) => r.body.response_format?.type === 'json_schema')).toBe(true);
  });

  it('records a server that refuses tools as text-only, and still measures the text protocol', { timeout: 120_000 }, async () => {
    stub.refuse({ tools: true, responseFormat: true });
    stub.setScript({ agent: [textSearch('Eiffel Tower')] });
    const out = join(dir, 'refusing.json');
    const { code, stdout } = await probe(['--base-url', stub.url, '--model', 'refusing', '--repeats', '1', '--out', out]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/auto will send: text; reply schemas no/);
    const record = JSON.parse(readFileSync(out, 'utf8'));
    expect(record.summary.native.callValidity).toBe(0);
    expect(record.attempts.find((a: any) => a.protocol === 'native').note).toMatch(/400/);
    expect(record.recommends.tools).toBe(false);
  });

  it('refuses a call without a model, naming the flag', async () => {
    const { code, stderr } = await probe(['--base-url', stub.url]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--model <name> is required/);
  });
});
