import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../../src/sandbox';

describe('evaluateExpression', () => {
  it('computes arithmetic with Math', async () => {
    expect(await evaluateExpression('(1200 - 450) / 3')).toEqual({ ok: true, value: 250 });
    expect(await evaluateExpression('Math.round(Math.sqrt(2) * 1000) / 1000')).toEqual({ ok: true, value: 1.414 });
    expect(await evaluateExpression('3 > 2')).toEqual({ ok: true, value: true });
  });

  it('has no globals but Math', async () => {
    expect(await evaluateExpression('typeof JSON + typeof Object + typeof Date + typeof fetch')).toEqual({
      ok: true,
      value: 'undefinedundefinedundefinedundefined',
    });
  });

  it('refuses results that are not finite scalars and reports errors', async () => {
    expect((await evaluateExpression('1 / 0')).ok).toBe(false);
    expect((await evaluateExpression('[1, 2]')).ok).toBe(false);
    const bad = await evaluateExpression('2 +* 3');
    expect(bad.ok || bad.error).toMatch(/SyntaxError/);
  });

  it('stops an endless expression and keeps working afterwards', async () => {
    const r = await evaluateExpression('(() => { while (true) {} })()');
    expect(r.ok || r.error).toMatch(/^cpu_budget: cpu budget exceeded/);
    expect(await evaluateExpression('6 * 7')).toEqual({ ok: true, value: 42 });
  });
});
