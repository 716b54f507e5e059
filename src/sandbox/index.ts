import { evaluateInModule } from './evaluate-in-module';
import { createModulePool } from './module-pool';
import { runInModule } from './run-in-module';
import type { ExpressionResult, RunProgramInput, RunProgramResult, SandboxCaps } from './types';
import { instantiateAsyncModule } from './wasm-modules';

export type * from './types';
export { DEFAULT_CAPS } from './types';

// Per isolate: instantiated modules are reused; every attempt gets its own runtime and context. One QuickJS build
// (asyncify) serves programs and the calculator alike: shipping the sync build too cost 226 KiB of the gzip upload.
const pool = createModulePool(instantiateAsyncModule);

/**
 * Runs untrusted JavaScript: evaluates `code`, then calls its `entry` function (default `solve`) with `args`.
 * Host functions are async JSON-in/JSON-out and look synchronous to the program. Never throws for anything
 * the program does; a host function's `LimitError` is rethrown so the run engine can end the run.
 *
 * @example
 * const r = await runProgram({ code: 'function solve(t) { return lookup(t.id) }', args: [{ id: 3 }],
 *   hostFunctions: { lookup: async (id) => `item ${id}` } });
 * // r.ok && r.value === 'item 3'
 */
export const runProgram = async (input: RunProgramInput): Promise<RunProgramResult> => {
  const module = await pool.acquire();
  let reusable = false;
  try {
    const run = await runInModule(module, input);
    reusable = run.reusable;
    return run.result;
  } finally {
    pool.release(module, reusable);
  }
};

/**
 * Evaluates an arithmetic expression with nothing but `Math` in scope (the CRAG calculator).
 *
 * @example
 * await evaluateExpression('Math.round(12.5 * 4) / 2') // { ok: true, value: 25 }
 */
export const evaluateExpression = async (expr: string, caps?: Partial<SandboxCaps>): Promise<ExpressionResult> => {
  const module = await pool.acquire();
  let reusable = false;
  try {
    const run = evaluateInModule(module, expr, caps);
    reusable = run.reusable;
    return run.result;
  } finally {
    pool.release(module, reusable);
  }
};
