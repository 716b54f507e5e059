// Per-attempt overhead of the program sandbox: a fresh QuickJS runtime + context, the prelude, and a small
// solve(table) program with two (stubbed, instant) host calls; the model is excluded.
// Runs in Node with the same (metered) wasm file the Worker imports (workerd's clock does not advance during
// synchronous code, so timing there needs an outside clock). Usage: npx tsx bench/sandbox.ts [iterations]
import { readFileSync } from 'node:fs';
import { evaluateInModule } from '../src/sandbox/evaluate-in-module';
import { INITIAL_MEMORY_BYTES, instantiateSandboxModule } from '../src/sandbox/instantiate';
import { runInModule } from '../src/sandbox/run-in-module';
import { DEFAULT_WORK_UNITS, type Json } from '../src/sandbox/types';

// The metered build of cli/build-quickjs.mjs (node cli/build-bundle.mjs makes it), the file the Worker imports.
const meteredWasm = new WebAssembly.Module(readFileSync(new URL('../src/generated/quickjs/quickjs.wasm', import.meta.url)));
const instantiate = () => instantiateSandboxModule(meteredWasm);

const iterations = Number(process.argv[2] ?? 300);
const table = {
  title: 'bench',
  columns: ['Year', 'Winner', 'Time'],
  rows: Array.from({ length: 20 }, (_, i) => ({
    Year: { text: String(2000 + i), links: [], row: i, column: 'Year' },
    Winner: { text: `Runner ${i}`, links: [`/wiki/R${i}`], row: i, column: 'Winner' },
    Time: { text: `2:${10 + i}:00`, links: [], row: i, column: 'Time' },
  })),
} as unknown as Json;
const code = `function solve(table) {
  const rows = table.rows.filter((r) => Number(r['Year'].text) > 2010);
  const best = rows.sort((a, b) => a['Time'].text.localeCompare(b['Time'].text))[0];
  const born = extract_info(best['Winner'], 'year of birth');
  return check(born, '1990', '<') ? best['Winner'].text : 'none';
}`;
const hostFunctions = { extract_info: async () => '1988', check: async () => true };

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const report = (label: string, xs: number[]) =>
  console.log(`${label.padEnd(44)} p50 ${pct(xs, 50).toFixed(2)} ms   p99 ${pct(xs, 99).toFixed(2)} ms   (n=${xs.length})`);

const cold: number[] = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  const module = await instantiate();
  await runInModule(module, { code, args: [table], hostFunctions });
  cold.push(performance.now() - t);
}

// Pooled as src/sandbox/index.ts pools: a module whose memory grew past its starting size is dropped and the next
// attempt gets a fresh one (its heap keeps a little of every attempt, so one module serves about a hundred; kept on,
// it reaches its memory maximum and breaks). The fresh instantiation is outside the timings; it is the cold figure.
let module = await instantiate();
let replaced = 0;
const dropIfGrown = async () => {
  if (module.memory.buffer.byteLength <= INITIAL_MEMORY_BYTES) return;
  module = await instantiate();
  replaced++;
};
const warm: number[] = [];
for (let i = 0; i < iterations; i++) {
  const t = performance.now();
  const run = await runInModule(module, { code, args: [table], hostFunctions });
  warm.push(performance.now() - t);
  if (!run.result.ok || run.result.value !== 'Runner 11') throw new Error(`unexpected result ${JSON.stringify(run.result)}`);
  await dropIfGrown();
}

const expr: number[] = [];
for (let i = 0; i < iterations; i++) {
  const t = performance.now();
  const r = evaluateInModule(module, '(1200 - 450) / 3 + Math.sqrt(16)');
  expr.push(performance.now() - t);
  if (!r.result.ok) throw new Error(r.result.error);
  await dropIfGrown();
}

console.log(`sandbox bench — Node ${process.version}, the metered QuickJS build of cli/build-quickjs.mjs (the file the Worker imports)`);
report('attempt, pooled module (fresh runtime+context)', warm);
report('attempt incl. module instantiation (cold)', cold);
report('evaluateExpression (same pooled module)', expr);
console.log(`pooled modules dropped because their memory grew, as the pool drops them: ${replaced} in ${2 * iterations} attempts`);

// The work units (cli/build-quickjs.mjs) this program needs: the smallest budget it passes with, by bisection.
let [lo, hi] = [1, DEFAULT_WORK_UNITS];
while (hi - lo > Math.max(1000, lo / 100)) {
  const mid = Math.floor((lo + hi) / 2);
  const probe = await instantiate();
  const run = await runInModule(probe, { code, args: [table], hostFunctions, caps: { workUnits: mid } });
  if (run.result.ok) hi = mid;
  else lo = mid;
}
console.log(`work units the program needs (of the default budget of ${DEFAULT_WORK_UNITS.toLocaleString('en-US')}): about ${hi.toLocaleString('en-US')}`);
