// @module-tag slow
/// <reference types="node" />
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBenchmark, parseHybridQAReference } from '../../src/eval/loaders/index';
import { prepareContexts } from '../../src/eval/node/contexts';
import { readBenchmarkText } from '../../src/eval/node/read-text';
import { goldText } from '../../src/eval/report/analysis';
import { dataPath, needsData } from '../support/benchmark-data';

/** `npm run score` on an eval's own predictions.jsonl: it scores the questions the eval asked, as the eval printed. */
const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const score = (args: string[]) => {
  const r = spawnSync(TSX, ['cli/score.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr, out: r.status === 0 ? JSON.parse(r.stdout.trim()) : undefined };
};
const tmp = mkdtempSync(join(tmpdir(), 'score-asked-'));

const mintaka = (id: string, answer: string) => ({ id, question: `Who is ${id}?`, category: 'misc', complexityType: 'generic', answer: { answerType: 'string', answer: [answer], mention: answer } });

describe('npm run score on the questions an eval asked', () => {
  const gold = join(tmp, 'gold.json');
  writeFileSync(gold, JSON.stringify(['a', 'b', 'c', 'd', 'e'].map((id) => mintaka(id, `answer ${id}`))));
  const pred = join(tmp, 'predictions.jsonl');
  // Two asked, one right and one wrong (an errored question is asked too: it has a line).
  writeFileSync(pred, `${JSON.stringify({ id: 'a', answer: 'answer a' })}\n${JSON.stringify({ id: 'b', answer: null, error: 'HTTP 503' })}\n`);

  it('scores the asked questions and says how many of the gold file were never asked', () => {
    const r = score(['--benchmark', 'mintaka', '--gold', gold, '--pred', pred]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.out).toMatchObject({ n: 2, notAsked: 3, metrics: { em: 50 } });
    expect(r.stderr).toContain(`note: scoring the 2 asked; 3 of the 5 questions in ${gold} have no line in ${pred} (never asked) — --all counts them as wrong`);
  });

  it('--all scores every gold question, the never-asked ones as wrong', () => {
    const r = score(['--benchmark', 'mintaka', '--gold', gold, '--pred', pred, '--all']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.out).toMatchObject({ n: 5, neverAskedCountedWrong: 3, metrics: { em: 20 } });
  });

  it('says nothing about unasked questions when every one was asked', () => {
    const all = join(tmp, 'all.jsonl');
    writeFileSync(all, ['a', 'b', 'c', 'd', 'e'].map((id) => JSON.stringify({ id, answer: `answer ${id}` })).join('\n'));
    const r = score(['--benchmark', 'mintaka', '--gold', gold, '--pred', all]);
    expect(r.out).toEqual({ benchmark: 'mintaka', n: 5, metrics: { em: 100, f1: 100, hits1: 100 } });
    expect(r.stderr).not.toContain('never asked');
  });
});

const hybridqa = dataPath('hybridqa');
describe.skipIf(!existsSync(join(hybridqa, 'WikiTables-WithLinks')))(needsData('npm run score on a HybridQA eval over the tables at hand'), () => {
  it('scores the 17 questions whose table is here, not the 3,466 of dev.json', () => {
    const items = loadBenchmark('hybridqa', readBenchmarkText(join(hybridqa, 'dev.json')), {
      reference: parseHybridQAReference(readBenchmarkText(join(hybridqa, 'dev_reference.json'))),
    });
    const asked = prepareContexts('hybridqa', items, { tables: join(hybridqa, 'WikiTables-WithLinks') }).items;
    const pred = join(tmp, 'hybridqa.jsonl');
    writeFileSync(pred, asked.map((i) => JSON.stringify({ id: i.id, answer: goldText(i.gold) })).join('\n'));
    const r = score(['--benchmark', 'hybridqa', '--gold', join(hybridqa, 'dev.json'), '--reference', join(hybridqa, 'dev_reference.json'), '--pred', pred]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.out).toMatchObject({ n: 17, notAsked: 3449, metrics: { em: 100, f1: 100 } });
    expect(r.stderr).toContain('note: scoring the 17 asked; 3,449 of the 3,466 questions');
  });
});
