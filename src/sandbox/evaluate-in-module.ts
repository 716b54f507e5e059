import type { SandboxModule } from './instantiate';
import { DEFAULT_CAPS, type ExpressionResult, type SandboxCaps } from './types';
import { FULL_TANK, workExhausted } from './work';

const MAX_EXPRESSION_CHARS = 2_000;

// Everything but Math (and the language's own constants) is removed before the expression runs.
const STRIP_GLOBALS = `
for (const name of Object.getOwnPropertyNames(globalThis)) {
  if (!['Math', 'NaN', 'Infinity', 'undefined', 'globalThis'].includes(name)) {
    try { delete globalThis[name]; } catch (e) {}
  }
}
`;

export interface ModuleEval {
  result: ExpressionResult;
  reusable: boolean;
}

/** Evaluates one arithmetic expression in a fresh runtime (synchronously), within the caps' work budget. */
export const evaluateInModule = ({ module, work }: SandboxModule, expr: string, capsIn?: Partial<SandboxCaps>): ModuleEval => {
  const caps = { ...DEFAULT_CAPS, memoryBytes: 4 * 1024 * 1024, ...capsIn };
  if (expr.length > MAX_EXPRESSION_CHARS) return { result: { ok: false, error: `expression longer than ${MAX_EXPRESSION_CHARS} characters` }, reusable: true };
  work.fill(FULL_TANK);
  const ctx = module.newContext();
  const rt = ctx.runtime;
  rt.setMemoryLimit(caps.memoryBytes);
  rt.setMaxStackSize(caps.stackBytes);
  let result: ExpressionResult;
  let reusable = true;
  try {
    const strip = ctx.evalCode(STRIP_GLOBALS, 'strip.js');
    if (strip.error) {
      strip.error.dispose();
      throw new Error('could not prepare the evaluator');
    }
    strip.value.dispose();
    // The newline lets a trailing line comment in the expression not swallow the parenthesis.
    work.fill(caps.workUnits);
    const out = ctx.evalCode(`(${expr}\n)`, 'expression.js');
    work.fill(FULL_TANK);
    if (out.error) {
      const message = describe(ctx.dump.bind(ctx), out.error);
      out.error.dispose();
      if (/out of memory|stack overflow/i.test(message)) reusable = false;
      result = { ok: false, error: message };
    } else {
      const type = ctx.typeof(out.value);
      if (type === 'number') {
        const n = ctx.getNumber(out.value);
        result = Number.isFinite(n) ? { ok: true, value: n } : { ok: false, error: `the result is not a finite number (${n})` };
      } else if (type === 'string') {
        const s = ctx.getString(out.value);
        result = s.length <= caps.outputChars ? { ok: true, value: s } : { ok: false, error: 'the result is too long' };
      } else if (type === 'boolean') {
        result = { ok: true, value: ctx.dump(out.value) === true };
      } else {
        result = { ok: false, error: `the expression evaluated to ${type}, not a number, string or boolean` };
      }
      out.value.dispose();
    }
  } catch (err) {
    // A trap; after a spent budget the heap is half-updated, so nothing is disposed and the module is dropped.
    const spent = workExhausted(work, caps.workUnits);
    if (spent) return { result: { ok: false, error: `${spent.kind}: ${spent.message}` }, reusable: false };
    reusable = false;
    result = { ok: false, error: `evaluator failure: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    ctx.dispose();
  } catch {
    reusable = false;
  }
  return { result, reusable };
};

const describe = (dump: (h: never) => unknown, handle: unknown): string => {
  try {
    const v = dump(handle as never);
    if (v && typeof v === 'object' && 'message' in v) {
      const e = v as { name?: string; message?: string };
      return `${e.name ?? 'Error'}: ${e.message ?? ''}`;
    }
    return `the expression threw ${JSON.stringify(v) ?? String(v)}`;
  } catch {
    return 'the expression failed';
  }
};
