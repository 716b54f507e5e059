#!/usr/bin/env node
// `npm test`: generated types up to date, type-check, then every vitest project. workerd prints a few messages while
// the test pool tears objects down (a WebSocket peer gone, the crash that `abortAllDurableObjects()` simulates on
// purpose); they are not failures, so they are filtered here and counted in one line. Everything else passes through.
// Ends with a plain `N passed, N failed, N skipped` line. Extra arguments go to vitest (`npm test -- tests/hqa`).
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const tty = process.stdout.isTTY;

const step = (label, cmd, cmdArgs) => {
  const r = spawnSync('npx', [cmd, ...cmdArgs], { encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } });
  if (r.status !== 0) {
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    console.error(`\n${label} failed.`);
    process.exit(r.status ?? 1);
  }
};

step('`wrangler types --check` (run `npm run types` after changing wrangler.toml)', 'wrangler', ['types', '--env-interface', 'Env', 'src/worker-configuration.d.ts', '--check']);
step('Type-check', 'tsc', ['--noEmit', '-p', '.']);

/** Harmless teardown noise from workerd: a first line, then indented stack lines that belong to it. */
const NOISE = [
  /disconnected: WebSocket peer disconnected/,
  /disconnected: PumpToReader was destroyed/,
  /Application called abortAllDurableObjects\(\)/,
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

const child = spawn('npx', ['vitest', 'run', ...args], {
  stdio: ['inherit', 'pipe', 'pipe'],
  env: { ...process.env, ...(tty ? { FORCE_COLOR: '1' } : {}) },
});
filter(child.stdout, process.stdout);
filter(child.stderr, process.stderr);
child.on('close', (code) => {
  if (hidden) console.log(`(${hidden} workerd teardown messages hidden: WebSocket peer disconnected / abortAllDurableObjects)`);
  const count = (word) => Number(new RegExp(`(\\d+) ${word}`).exec(summary)?.[1] ?? 0);
  if (summary) console.log(`\n${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  process.exit(code ?? 1);
});
