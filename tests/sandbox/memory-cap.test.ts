import { describe, expect, it } from 'vitest';
import { runProgram, sandboxPoolStats } from '../../src/sandbox';
import { createModulePool } from '../../src/sandbox/module-pool';

// QuickJS's own memory limit counts allocations, not bytes, in an Emscripten build; these programs used to grow
// one module's memory to 2 GB. The bound now is the module's WebAssembly memory maximum.
describe('the sandbox memory cap holds for the whole module', () => {
  it('a program that allocates 8 MB arrays forever ends with an out-of-memory error', async () => {
    // A work budget far above the default, so that only the memory cap can end this program. With the default budget
    // the two are close: a module that already served a program in this isolate (the pool reuses it) spends more
    // work units before its memory runs out, and the budget can end the loop first (seen when another file's
    // programs ran before this one in the same runtime).
    const r = await runProgram({ code: 'function solve(t){ const a=[]; for(;;) a.push(new Array(1e6).fill(1)); }', args: [{}], caps: { workUnits: 1e9 } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('memory');
      expect(r.error.message).toMatch(/memory/i);
    }
  });

  it('three arrays of a million numbers (24 MB) are over the 16 MB cap', async () => {
    const r = await runProgram({ code: 'function solve(){ const a=[]; for (let i=0;i<3;i++) a.push(new Array(1e6).fill(1)); return a.length }' });
    expect(r.ok).toBe(false);
  });

  it('four such programs at once all fail cleanly, and the next program works and nothing is left in use', async () => {
    const code = 'function solve(t){ const a=[]; for(;;) a.push(new Array(1e6).fill(1)); }';
    const results = await Promise.all([1, 2, 3, 4].map(() => runProgram({ code })));
    for (const r of results) expect(r.ok).toBe(false);
    expect(await runProgram({ code: 'function solve(x){ return x * 2 }', args: [21] })).toMatchObject({ ok: true, value: 42 });
    expect(sandboxPoolStats().active).toBe(0);
    // Modules whose memory grew were dropped, not kept idle.
    expect(sandboxPoolStats().idle).toBeLessThanOrEqual(3);
  });

  it('a normal program still has its 8 MB', async () => {
    expect(await runProgram({ code: 'function solve(){ return new Array(1e6).fill(1).length }' })).toMatchObject({ ok: true, value: 1e6 });
  });
});

describe('module pool', () => {
  it('hands out at most maxActive modules; the next caller waits for a release', async () => {
    let made = 0;
    const pool = createModulePool(async () => ++made, 1, 2);
    const a = await pool.acquire();
    const b = await pool.acquire();
    let third: number | undefined;
    const waiting = pool.acquire().then((m) => (third = m));
    await new Promise((r) => setTimeout(r, 10));
    expect(third).toBeUndefined();
    expect(pool.active()).toBe(2);
    pool.release(a, true);
    await waiting;
    expect(third).toBe(a);
    pool.release(b, false);
    pool.release(third!, true);
    expect(pool.active()).toBe(0);
    expect(pool.idle()).toBe(1);
  });
});
