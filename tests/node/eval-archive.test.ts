// @module-tag slow
/// <reference types="node" />
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dataPath, needsData } from '../support/benchmark-data';

/**
 * Issue 18: `npm run eval -- --record` writes one archive of every run's evidence; a second evaluation with
 * `--replay` of that file serves every request from it and reports 0 misses. Both run a rehearsal (our npm run dev
 * with the OpenAI-compatible stub answering the gold) on a few real Mintaka questions.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DATA = dataPath('mintaka/dev_sample.json');
const dir = mkdtempSync(join(tmpdir(), 'eval-archive-'));

const evalCli = (...flags: string[]) => {
  const r = spawnSync('npx', ['tsx', 'cli/eval.ts', '--benchmark', 'mintaka', '--data', DATA, '--sample', '4', '--seed', '1', '--rehearse', ...flags], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 240_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
};

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!existsSync(DATA))(needsData('evaluation archives'), () => {
  it('--record writes one deduplicated archive, and a second evaluation with --replay has 0 misses', { timeout: 300_000 }, () => {
    const file = join(dir, 'mintaka.jsonl');
    const recorded = evalCli('--out', join(dir, 'rec'), '--record', file);
    expect(recorded.record).toMatchObject({ runs: 4, failed: 0 });
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ format: 'humaniq-evidence-archive', version: 1, records: lines.length - 1 });
    expect(lines.length - 1).toBeGreaterThan(0);
    expect(new Set(lines.slice(1).map((l) => l.key)).size).toBe(lines.length - 1);

    const replayed = evalCli('--out', join(dir, 'rep'), '--replay', file);
    expect(replayed.replay).toEqual({ archive: file, runs: 4, misses: 0 });
    expect(replayed.metrics).toEqual(recorded.metrics);
  });
});
