// @module-tag slow
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The CLIs as a user meets them: --help, a typo in a flag, the wrong benchmark file. */
const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const run = (script: string, args: string[]) => spawnSync(TSX, [script, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
const tmp = mkdtempSync(join(tmpdir(), 'humaniq-cli-'));

describe('command-line flags', () => {
  it('npm run eval -- --help exits 0 with the usage, every flag listed', () => {
    const r = run('cli/eval.ts', ['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm run eval -- \[flags\]/);
    for (const flag of ['--benchmark <name>', '--data <file>', '--sample <N>', '--seed <S>', '--rehearse', '--judge']) expect(r.stdout).toContain(flag);
  });

  it('an unknown flag or a missing value stops with exit 2 and names it', () => {
    const typo = run('cli/eval.ts', ['--benchmark', 'mintaka', '--smaple', '3']);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("unknown flag '--smaple'");
    expect(typo.stderr).toContain('--help');
    const missing = run('cli/score.ts', ['--benchmark']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--benchmark');
  });

  it('a file of the wrong shape names the file, the question and the field', () => {
    const file = join(tmp, 'broken-mintaka.json');
    writeFileSync(file, JSON.stringify([{ id: 'a1', question: 'Q?', answer: { answerType: 'entity', answer: [] } }, { id: 'b2', question: 'Q2?', answer: {} }]));
    const r = run('cli/score.ts', ['--benchmark', 'mintaka', '--gold', file, '--pred', join(tmp, 'none.jsonl')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}: question 2 (id "b2"): answer.answerType:`);
    const list = run('cli/score.ts', ['--benchmark', 'qald9plus', '--gold', file, '--pred', join(tmp, 'none.jsonl')]);
    expect(list.stderr).toContain('expected a QALD document');
  });
});
