#!/usr/bin/env node
// `npm test`: generated types up to date, type-check, then every vitest project. workerd prints a few messages while
// the test pool tears objects down (a WebSocket peer gone, the crash that `abortAllDurableObjects()` simulates on
// purpose); they are not failures, so they are filtered here and counted in one line. Everything else passes through.
// Ends with a plain `N passed, N failed, N skipped` line, and a line saying how many tests skipped because the benchmark
// data folder (BENCHMARK_DATA, default ../shared/data) lacks their files. Extra arguments go to vitest (`npm test -- tests/hqa`).
//
// `npm run test:quick` (`--quick`): the edit loop. Type-check, then every test file but those tagged
// `// @module-tag slow` (they start a dev server, wrangler, the eval CLI or a browser, or wait out real holds and
// retries); no `wrangler types --check`. Extra arguments narrow the files (`npm run test:quick -- tests/hqa`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { countDataSkips, dataSkipLine } from './data-skips.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const given = process.argv.slice(2).filter((a) => a !== '--quick');
const tty = process.stdout.isTTY;

/** The test files `test:quick` runs: all but those tagged slow, narrowed to the positional arguments given. */
const quickFiles = () => {
  const filters = given.filter((a) => !a.startsWith('-'));
  const files = readdirSync(join(ROOT, 'tests'), { recursive: true })
    .map((f) => join('tests', String(f)))
    .filter((f) => f.endsWith('.test.ts') && !/@module-tag\s+slow\b/.test(readFileSync(join(ROOT, f), 'utf8')))
    .filter((f) => !filters.length || filters.some((x) => f.includes(x.replace(/^\.\//, ''))))
    .sort();
  return [...files, ...given.filter((a) => a.startsWith('-'))];
};
const args = quick ? quickFiles() : given;
if (quick && !args.some((a) => !a.startsWith('-'))) {
  console.log(`test:quick: no test file outside the slow ones matches ${given.join(' ')}`);
  process.exit(1);
}

const step = (label, cmd, cmdArgs) => {
  const r = spawnSync('npx', [cmd, ...cmdArgs], { encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } });
  if (r.status !== 0) {
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    console.error(`\n${label} failed.`);
    process.exit(r.status ?? 1);
  }
};

if (!quick) step('`wrangler types --check` (run `npm run types` after changing wrangler.toml)', 'wrangler', ['types', '--env-interface', 'Env', 'src/worker-configuration.d.ts', '--check']);
step('Type-check', 'tsc', ['--noEmit', '-p', '.']);

/** Harmless teardown noise from workerd: a first line, then indented stack lines that belong to it. */
const NOISE = [
  /disconnected: WebSocket peer disconnected/,
  /disconnected: PumpToReader was destroyed/,
  /Application called abortAllDurableObjects\(\)/,
  /Application called abort\(\) to reset Durable Object/,
  /^NOSENTRY /,
];
const CONTINUATION = /^(\s+at |stack: |\s*$)/;
const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

let hidden = 0;
let summary = '';
const filter = (stream, out) => {
  let inNoise = false;
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    const plain = stripAnsi(line);
    if (/^JSON report written to /.test(plain)) return;
    if (NOISE.some((re) => re.test(plain))) {
      hidden++;
      inNoise = true;
      return;
    }
    if (inNoise && CONTINUATION.test(plain) && plain.trim()) return;
    inNoise = false;
    if (/^\s*Tests\s+\d/.test(plain)) summary = plain;
    out.write(`${line}\n`);
  });
};

// Tests that need the data folder are marked in their titles (cli/data-skips.mjs); a JSON report beside the usual
// output lets us count the ones that skipped.
const DATA_DIR = resolve(ROOT, process.env.BENCHMARK_DATA || '../shared/data');
const reportDir = mkdtempSync(join(tmpdir(), 'humaniq-test-report-'));
const report = join(reportDir, 'vitest.json');
const ownReporter = args.some((a) => a.startsWith('--reporter'));
const reporterArgs = ownReporter ? [] : ['--reporter=default', '--reporter=json', `--outputFile.json=${report}`];

const dataSkips = () => (existsSync(report) ? countDataSkips(JSON.parse(readFileSync(report, 'utf8'))) : 0);

const child = spawn('npx', ['vitest', 'run', ...reporterArgs, ...args], {
  stdio: ['inherit', 'pipe', 'pipe'],
  env: { ...process.env, ...(tty ? { FORCE_COLOR: '1' } : {}) },
});
filter(child.stdout, process.stdout);
filter(child.stderr, process.stderr);
child.on('close', (code) => {
  if (hidden) console.log(`(${hidden} workerd teardown messages hidden: WebSocket peer disconnected / abortAllDurableObjects / gates reset between files)`);
  const count = (word) => Number(new RegExp(`(\\d+) ${word}`).exec(summary)?.[1] ?? 0);
  if (summary) console.log(`\n${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  const line = dataSkipLine(dataSkips(), DATA_DIR);
  rmSync(reportDir, { recursive: true, force: true });
  if (line) console.log(line);
  process.exit(code ?? 1);
});
