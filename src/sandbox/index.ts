import { evaluateInModule } from './evaluate-in-module';
import { createModulePool } from './module-pool';
import { runInModule } from './run-in-module';
import type { ExpressionResult, RunProgramInput, RunProgramResult, SandboxCaps } from './types';
import { INITIAL_MEMORY_BYTES, instantiateAsyncModule, type SandboxModule } from './wasm-modules';

export type * from './types';
export { DEFAULT_CAPS } from './types';

// Per isolate: instantiated modules are reused; every attempt gets its own runtime and context. One QuickJS build
// (asyncify) serves programs and the calculator alike: shipping the sync build too cost 226 KiB of the gzip upload.
const pool = createModulePool(instantiateAsyncModule);

/** A module whose memory grew keeps that memory for good; only one back at its starting size is worth keeping. */
const keep = (m: SandboxModule, clean: boolean) => clean && m.memory.buffer.byteLength <= INITIAL_MEMORY_BYTES;

/**
 * Hands the event loop back once between making a module (synchronous instantiation, after a trap threw the last
 * one away) and running an attempt on it (synchronous up to its work budget), so a waiting request such as
 * /healthz is served between the two stretches instead of after both.
 */
const yieldToOthers = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Sandboxes in use and idle in this isolate (for tests and benchmarks). */
export const sandboxPoolStats = () => ({ active: pool.active(), idle: pool.idle() });

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
  const m = await pool.acquire();
  let reusable = false;
  try {
    await yieldToOthers();
    const run = await runInModule(m, input);
    reusable = run.reusable;
    return run.result;
  } finally {
    pool.release(m, keep(m, reusable));
  }
};

/**
 * Evaluates an arithmetic expression with nothing but `Math` in scope (the CRAG calculator).
 *
 * @example
 * await evaluateExpression('Math.round(12.5 * 4) / 2') // { ok: true, value: 25 }
 */
export const evaluateExpression = async (expr: string, caps?: Partial<SandboxCaps>): Promise<ExpressionResult> => {
  const m = await pool.acquire();
  let reusable = false;
  try {
    await yieldToOthers();
    const run = evaluateInModule(m, expr, caps);
    reusable = run.reusable;
    return run.result;
  } finally {
    pool.release(m, keep(m, reusable));
  }
};
