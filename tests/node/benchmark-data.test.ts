// @module-tag slow
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countDataSkips, dataSkipLine } from '../../cli/data-skips.mjs';
import { hasData } from '../support/benchmark-data';

/**
 * A clone without ../shared: the tests that need the benchmark files skip, and `npm test` says how many and where it
 * looked; with BENCHMARK_DATA pointing at the files, they run. Checked on one data test file, through vitest itself.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const OUT = mkdtempSync(join(tmpdir(), 'humaniq-data-skips-'));
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

const vitestWith = (data: string, name: string) => {
  const report = join(OUT, `${name}.json`);
  const run = spawnSync('npx', ['vitest', 'run', '--project', 'node', 'tests/node/web-crag.test.ts', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 110_000,
    env: { ...process.env, BENCHMARK_DATA: data, NO_COLOR: '1' },
  });
  return { status: run.status, report: JSON.parse(readFileSync(report, 'utf8')) };
};

describe('the benchmark data folder comes from BENCHMARK_DATA', () => {
  it('without it the data tests skip, and the line names how many and where it looked', () => {
    const missing = join(OUT, 'no-such-folder');
    const { status, report } = vitestWith(missing, 'missing');
    expect(status).toBe(0);
    const skipped = countDataSkips(report);
    expect(skipped).toBeGreaterThan(0);
    expect(dataSkipLine(skipped, missing)).toBe(
      `${skipped} of them skipped for missing benchmark data: looked in ${missing} (set BENCHMARK_DATA to the folder with mintaka/, qald9plus/, compmix/, hybridqa/, mmqa/, crag/)`,
    );
  });

  it.skipIf(!hasData('crag/sample5.jsonl.gz'))('with it they run [benchmark data]', () => {
    const { status, report } = vitestWith(resolve(ROOT, process.env.BENCHMARK_DATA || '../shared/data'), 'present');
    expect(status).toBe(0);
    expect(countDataSkips(report)).toBe(0);
    expect(report.numPassedTests).toBeGreaterThan(0);
  });
});
