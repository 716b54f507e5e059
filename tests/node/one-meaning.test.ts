import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoPath, ROOT, sources } from '../support/import-graph';

/**
 * One meaning in one place (ARCHITECTURE.md, docs/DEVELOPING.md "Options, recipes and the run scope"), held on the
 * source text of src/ and durable-objects/:
 * - a run's options are parsed once, by the run service, into the typed options a step reads as `ctx.options`: nothing
 *   reads `request.options` (the options as sent) but the run service, which parses them, and the run object's set-up,
 *   which parses those of a run stored by older code;
 * - what the `paper` recipe changes is data in a strategy's recipe table (a `recipes.ts`): no code outside one tests
 *   a recipe by name (`=== 'paper'`, `!== 'ours'`, …);
 * - what a caller asks done with an answer (`abstain`, `abstainBelow`, `booleanStyle`) is declared in the options
 *   schema and acts in the answer policy, which only the run's stepper applies, with its setup's options: attribution
 *   and the run's evidence never carry the options (route → run service → schema → run object → its store → stepper
 *   → setup → policy: 8 files, docs/DEVELOPING.md).
 */

const stripComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** `request.options`, `ctx.request.options`, `request?.options`: the options as the caller sent them. */
const READS_SENT_OPTIONS = /\brequest\??\.options\b/;
/** A recipe tested by its name, either way round. */
const TESTS_RECIPE_BY_NAME = /[!=]==?\s*['"`](?:paper|ours)['"`]|['"`](?:paper|ours)['"`]\s*[!=]==?/;

/** Where the options as sent may be read: the run service parses them; the run's set-up parses a stored run's. */
const MAY_READ_SENT_OPTIONS = (path: string) => path.startsWith('src/runs/') || path === 'durable-objects/run/setup.ts';
/** A strategy's recipe table. */
const isRecipeTable = (path: string) => path.endsWith('/recipes.ts');

/** Every line of `files` (repository paths with their code) that matches `rule`, as `path:line: text`. */
const offending = (files: Array<[string, string]>, rule: RegExp, allowed: (path: string) => boolean): string[] =>
  files.flatMap(([path, code]) =>
    allowed(path)
      ? []
      : stripComments(code)
          .split('\n')
          .flatMap((line, i) => (rule.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
  );

const workerCode = (): Array<[string, string]> =>
  ['src', 'durable-objects'].flatMap((dir) => sources(join(ROOT, dir)).map((f): [string, string] => [repoPath(f), readFileSync(f, 'utf8')]));

describe('one meaning in one place', () => {
  const files = workerCode();

  it('reads the real code (the checks are not vacuous)', () => {
    expect(files.length).toBeGreaterThan(300);
    // Each rule finds what it is written for, where it would be written, and leaves the allowed places alone.
    const planted: Array<[string, string]> = [
      ['src/strategies/rag/retrieve.ts', 'const k = ctx.request.options?.topChunks;'],
      ['src/engine/limits.ts', 'const asked = request.options?.limits;'],
      ['src/runs/fork.ts', 'const merged = { ...(found.source.request.options ?? {}) };'],
      ['src/strategies/program/index.ts', "const paper = recipe === 'paper';"],
      ['src/fewshot/select.ts', "if ('ours' !== input.recipe) return;"],
      ['src/strategies/rag/recipes.ts', "export const paper = (r: Recipe) => r === 'paper';"],
      ['src/strategies/hqa/merge.ts', "// the recipe === 'paper' merge reads the response"],
    ];
    expect(offending(planted, READS_SENT_OPTIONS, MAY_READ_SENT_OPTIONS)).toEqual([
      'src/strategies/rag/retrieve.ts:1: const k = ctx.request.options?.topChunks;',
      'src/engine/limits.ts:1: const asked = request.options?.limits;',
    ]);
    expect(offending(planted, TESTS_RECIPE_BY_NAME, isRecipeTable)).toEqual([
      "src/strategies/program/index.ts:1: const paper = recipe === 'paper';",
      "src/fewshot/select.ts:1: if ('ours' !== input.recipe) return;",
    ]);
  });

  it('no strategy, engine or run object code reads the options as sent: steps read ctx.options', () => {
    expect(offending(files, READS_SENT_OPTIONS, MAY_READ_SENT_OPTIONS)).toEqual([]);
  });

  it('no code tests a recipe by name outside a recipe table', () => {
    expect(offending(files, TESTS_RECIPE_BY_NAME, isRecipeTable)).toEqual([]);
  });

  it('abstainBelow is declared in the options schema and acts in the answer policy, which only the stepper applies', () => {
    const naming = (rule: RegExp) => files.filter(([, code]) => rule.test(stripComments(code))).map(([path]) => path);
    // The config view names it to show a run's resolved options; the eval report to recommend a threshold.
    expect(naming(/\babstainBelow\b/).sort()).toEqual(['src/engine/answer-policy.ts', 'src/engine/options.ts', 'src/eval/report/risk-coverage.ts', 'src/runs/resolved-options.ts']);
    expect(naming(/from '[./]*(?:src\/)?engine\/answer-policy'|from '\.\.\/answer-policy'|from '\.\/answer-policy'/)).toEqual(['durable-objects/run/stepper.ts']);
    // Attribution grades what the evidence backs; it is handed no options of the caller's.
    expect(naming(/\b(?:abstain|booleanStyle|AnswerPolicy)\b/).filter((p) => p.includes('/attribution/') || p.startsWith('durable-objects/run/evidence') || p.startsWith('durable-objects/run/step-context'))).toEqual([]);
  });
});
