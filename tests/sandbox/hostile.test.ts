import { describe, expect, it } from 'vitest';
import { runProgram, type RunProgramResult, type SandboxErrorKind } from '../../src/sandbox';

// Every case must end with a clear error (or a harmless value) and leave the sandbox usable.
// The bound on time is vitest's timeout: there are no timing asserts.

const expectError = (r: RunProgramResult, kind: SandboxErrorKind, message?: RegExp) => {
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.error.kind).toBe(kind);
  if (message) expect(r.error.message).toMatch(message);
};

const stillWorks = async () =>
  expect(await runProgram({ code: 'function solve(x) { return x + 1 }', args: [41] })).toMatchObject({ ok: true, value: 42 });

describe('hostile programs are contained', () => {
  it('an endless loop ends at the CPU budget', async () => {
    expectError(await runProgram({ code: 'function solve() { while (true) {} }' }), 'cpu_budget', /cpu budget exceeded/);
    await stillWorks();
  });

  it('an endless loop that swallows every error still ends', async () => {
    const code = 'function solve() { for (;;) { try { while (true) {} } catch (e) {} } }';
    expectError(await runProgram({ code }), 'cpu_budget');
  });

  it('an endless loop at the top level ends at the CPU budget', async () => {
    expectError(await runProgram({ code: 'while (true) {}\nfunction solve() { return 1 }' }), 'cpu_budget');
  });

  it('a huge allocation ends as a memory error (or spends its work budget first)', async () => {
    const pushing = await runProgram({ code: 'function solve() { const a = []; while (true) a.push({ n: a.length, s: "x" + a.length }); }' });
    expect(pushing.ok || pushing.error.kind).toMatch(/^(memory|cpu_budget)$/);
    expectError(await runProgram({ code: 'function solve() { return "x".repeat(1e9).length }' }), 'memory');
    await stillWorks();
  });

  it('a string doubled without end is stopped', async () => {
    const r = await runProgram({ code: 'function solve() { let s = "x"; while (true) s += s; }' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(['memory', 'exception']).toContain(r.error.kind);
    await stillWorks();
  });

  it('deep recursion ends as a stack error', async () => {
    expectError(await runProgram({ code: 'function solve(n) { return solve(n + 1) + 1 }', args: [0] }), 'stack', /stack/);
    await stillWorks();
  });

  it('the constructor chain reaches only the sandbox global, which holds no host objects', async () => {
    const r = await runProgram({
      code: `function solve() {
        const g = this === undefined ? (() => {}).constructor('return globalThis')() : this.constructor.constructor('return globalThis')();
        const f = solve.constructor.constructor('return this')();
        return [g === globalThis, f === globalThis, typeof g.fetch, typeof g.process, typeof g.require, typeof g.Request,
                typeof g.WebAssembly, typeof g.__sandbox_host_call, typeof g.__sandbox_host_log, typeof g.caches];
      }`,
    });
    expect(r).toMatchObject({ ok: true, value: [true, true, 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'] });
  });

  it('imports are refused', async () => {
    expectError(await runProgram({ code: 'import x from "node:fs";\nfunction solve() { return x }' }), 'syntax');
    const dyn = await runProgram({ code: 'function solve() { import("node:fs"); return "queued" }' });
    // Dynamic import only queues a job the sandbox never runs: nothing is loaded.
    expect(dyn).toMatchObject({ ok: true, value: 'queued' });
  });

  it.each([
    ['throw 42', /42/],
    ['throw {}', /\{\}/],
    ['throw null', /null/],
    ['throw undefined', /undefined/],
    ['throw "plain string"', /plain string/],
    ['throw { get message() { throw new Error("trap") } }', /not an Error/],
  ])('%s ends as an exception with a readable message', async (stmt, message) => {
    expectError(await runProgram({ code: `function solve() { ${stmt} }` }), 'exception', message);
  });

  it('a promise that never resolves is refused instead of awaited', async () => {
    expectError(await runProgram({ code: 'async function solve() { await new Promise(() => {}); return 1 }' }), 'exception', /Promise/);
    expectError(await runProgram({ code: 'function solve() { return new Promise(() => {}) }' }), 'exception', /Promise/);
  });

  it('host calls in a loop stop at the cap even when the program catches the error', async () => {
    let calls = 0;
    const r = await runProgram({
      code: 'function solve() { for (;;) { try { ping() } catch (e) {} } }',
      hostFunctions: { ping: async () => ++calls },
      caps: { hostCalls: 5 },
    });
    expectError(r, 'host_calls', /more than 5/);
    expect(calls).toBe(5);
    await stillWorks();
  });

  it('a host function that never settles ends the attempt after its time cap', async () => {
    const r = await runProgram({
      code: 'function solve() { return wait() }',
      hostFunctions: { wait: () => new Promise(() => {}) },
      caps: { hostCallMs: 50 },
    });
    expectError(r, 'exception', /longer than 50 ms/);
    await stillWorks();
  });

  it('a result larger than the output cap is refused', async () => {
    expectError(await runProgram({ code: 'function solve() { return "x".repeat(5000) }', caps: { outputChars: 1000 } }), 'output');
  });

  it('console output past the cap ends the run', async () => {
    expectError(await runProgram({ code: 'function solve() { for (;;) console.log("spam spam spam") }', caps: { logChars: 500 } }), 'output');
  });

  it('replacing JSON and eval does not break the harness', async () => {
    const r = await runProgram({
      code: 'JSON.stringify = () => "hacked"; JSON.parse = () => 0; eval = null;\nfunction solve(x) { return { got: x } }',
      args: ['in'],
    });
    expect(r).toMatchObject({ ok: true, value: { got: 'in' } });
  });

  it('a cyclic result is reported, not crashed on', async () => {
    expectError(await runProgram({ code: 'function solve() { const a = {}; a.a = a; return a }' }), 'exception', /circular|cyclic/i);
  });
});

describe('native loops the interrupt handler cannot see', () => {
  it.each([
    'function solve() { return new Array(1e9).includes(1) }',
    'function solve() { const a = []; a.length = 1e9; a.forEach((x) => x); return 1 }',
    'function solve() { return Array.prototype.indexOf.call({ length: 1e9 }, 1) }',
    'function solve() { return new Array(1e9).fill(1).length }',
  ])('%s is refused', async (code) => {
    expectError(await runProgram({ code }), 'exception', /allows at most/);
  });

  it('ordinary array methods still work', async () => {
    const r = await runProgram({ code: 'function solve() { return [3, 1, 2].sort().map((x) => x * 2).filter((x) => x > 2).join("-") }' });
    expect(r).toMatchObject({ ok: true, value: '4-6' });
  });
});
