import { describe, expect, it } from 'vitest';
import { evaluateExpression, runProgram, sandboxPoolStats } from '../../src/sandbox';

// Built-ins whose cost grows with their input run in C, where QuickJS never asks its interrupt handler; the metered
// engine (cli/build-quickjs.mjs) counts their loops too. Each case must end as `cpu_budget` and leave the sandbox
// serving the next program. No timing asserts: vitest's timeout is the bound.

const LONG = `const s = 'a'.repeat(2000000) + 'b'; const n = 'a'.repeat(2000) + 'c';`;

const programs: [string, string][] = [
  ['indexOf with a long needle (the reported case)', `function solve(t){ ${LONG} return s.indexOf(n); }`],
  ['includes with a long needle', `function solve(t){ ${LONG} return s.includes(n); }`],
  ['split with a long needle', `function solve(t){ ${LONG} return s.split(n).length; }`],
  ['replace with a long needle', `function solve(t){ ${LONG} return s.replace(n, 'x').length; }`],
  ['replaceAll with a long needle', `function solve(t){ ${LONG} return s.replaceAll(n, 'x').length; }`],
  ['lastIndexOf with a long needle', `function solve(t){ ${LONG} return s.lastIndexOf(n); }`],
  [
    '50 × JSON.stringify of a 100,000-element array',
    'function solve(t){ const a = Array.from({ length: 100000 }, (_, i) => i); let n = 0; for (let i = 0; i < 50; i++) n += JSON.stringify(a).length; return n; }',
  ],
  ['a catastrophic regular expression', "function solve(t){ return /^(a+)+$/.test('a'.repeat(40) + 'b'); }"],
  ['default sort of a large array', 'function solve(t){ const a = Array.from({ length: 150000 }, (_, i) => (i * 7919) % 150001); return a.sort()[0]; }'],
];

describe('the work budget bounds native built-ins', () => {
  it.each(programs)('%s ends as cpu_budget, and the next program works', async (_, code) => {
    const r = await runProgram({ code, args: [{}] });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('cpu_budget');
      expect(r.error.message).toMatch(/cpu budget exceeded/);
    }
    expect(await runProgram({ code: 'function solve(x) { return x + 1 }', args: [41] })).toMatchObject({ ok: true, value: 42 });
    expect(sandboxPoolStats().active).toBe(0);
  });

  it('the budget holds after a host call has suspended and resumed the program', async () => {
    const code = `function solve(t){ const k = lookup('x'); ${LONG} return k + s.indexOf(n); }`;
    const r = await runProgram({ code, hostFunctions: { lookup: async () => 'y' } });
    expect(r).toMatchObject({ ok: false, error: { kind: 'cpu_budget' } });
    expect(r.hostCalls).toHaveLength(1);
  });

  it('a program that catches every error still cannot outlive the budget', async () => {
    const code = `function solve(t){ ${LONG} for (;;) { try { s.indexOf(n); } catch (e) {} } }`;
    expect(await runProgram({ code })).toMatchObject({ ok: false, error: { kind: 'cpu_budget' } });
  });

  it('the budget is per attempt and configurable', async () => {
    const code = 'function solve(t){ let x = 0; for (let i = 0; i < 20000; i++) x += i; return x; }';
    expect(await runProgram({ code })).toMatchObject({ ok: true, value: 199990000 });
    expect(await runProgram({ code, caps: { workUnits: 10_000 } })).toMatchObject({ ok: false, error: { kind: 'cpu_budget' } });
    expect(await runProgram({ code })).toMatchObject({ ok: true, value: 199990000 });
  });

  it('a calculator expression that searches a long string ends as cpu_budget', async () => {
    const r = await evaluateExpression("(s=>s.indexOf(s.slice(0,2e3)+'b'))('a'.repeat(1.5e6))");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^cpu_budget: cpu budget exceeded/);
    expect(await evaluateExpression('6 * 7')).toEqual({ ok: true, value: 42 });
  });
});
