import type { QuickJSAsyncContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { classifyError, parseDescribed, poisonsModule } from './classify';
import type { SandboxModule } from './instantiate';
import { HostSession, installHostBridge } from './host-bridge';
import { buildPrelude } from './prelude';
import { FULL_TANK, workExhausted } from './work';
import {
  DEFAULT_CAPS,
  type HostCallRecord,
  type Json,
  type RunProgramInput,
  type RunProgramResult,
  type SandboxCaps,
  type SandboxError,
} from './types';

export interface ModuleRun {
  result: RunProgramResult;
  /** False when the module must not serve another run (see module-pool.ts). */
  reusable: boolean;
}

/**
 * One attempt in a fresh runtime and context of an instantiated asyncify module, with the module's work counter
 * filled to `caps.workUnits`: past it the engine traps wherever it is (a built-in included) and the attempt ends as
 * `cpu_budget`, with the module discarded.
 * Host functions reach the program through one dispatcher that carries JSON strings only, so the program
 * never holds a host object. A host error named `LimitError` (a run limit) stops the program and is rethrown.
 */
export const runInModule = async ({ module, work }: SandboxModule, input: RunProgramInput): Promise<ModuleRun> => {
  const caps: SandboxCaps = { ...DEFAULT_CAPS, ...input.caps };
  const hostFunctions = input.hostFunctions ?? {};
  const session = new HostSession(caps, hostFunctions);
  const { logs, hostCalls } = session;

  // Our own setup and teardown run on a full counter; the budget is the program's alone.
  work.fill(FULL_TANK);
  const ctx = module.newContext();
  const rt = ctx.runtime;
  rt.setMemoryLimit(caps.memoryBytes);
  rt.setMaxStackSize(caps.stackBytes);
  rt.setInterruptHandler(() => session.stopped);
  rt.setModuleLoader(() => ({ error: new Error('imports are not available in the sandbox') }));

  const finish = (result: RunProgramResult, reusable: boolean): ModuleRun => {
    let disposed = true;
    try {
      ctx.dispose();
    } catch {
      disposed = false;
    }
    if (session.fatal) throw session.fatal;
    return { result, reusable: reusable && disposed };
  };
  const fail = (error: SandboxError): ModuleRun =>
    finish({ ok: false, error: session.stop ?? error, logs, hostCalls }, !session.stop && !poisonsModule(error.kind));

  try {
    installHostBridge(ctx, session);
    const setup = await prepare(ctx, buildPrelude(Object.keys(hostFunctions)), input.args ?? []);
    if (setup) return fail(setup);

    const call = `__sandbox_run(${JSON.stringify(input.code)}, ${JSON.stringify(input.entry ?? 'solve')}, ${caps.outputChars})`;
    work.fill(caps.workUnits);
    const outcome = await ctx.evalCodeAsync(call, 'call.js');
    work.fill(FULL_TANK);
    if (outcome.error) {
      // Only uncatchable ends get here: the interrupt after a cap, or a failure inside the harness itself.
      const described = safeDump(ctx, outcome.error);
      outcome.error.dispose();
      return fail(classifyError(described, 'call'));
    }
    const reply = ctx.typeof(outcome.value) === 'string' ? ctx.getString(outcome.value) : '';
    outcome.value.dispose();
    if (session.stop) return fail(session.stop);
    return interpret(reply, caps, logs, hostCalls, finish, fail);
  } catch (err) {
    if (session.fatal) throw session.fatal;
    return { result: { ok: false, error: trapped(err, ctx, work, caps, session.stop), logs, hostCalls }, reusable: false };
  }
};

/** Loads the prelude and hands the arguments over; an error when either fails. */
const prepare = async (ctx: QuickJSAsyncContext, prelude: string, args: unknown[]): Promise<SandboxError | undefined> => {
  const loaded = await ctx.evalCodeAsync(prelude, 'prelude.js');
  if (loaded.error) {
    loaded.error.dispose();
    return { kind: 'exception', message: 'the sandbox could not start' };
  }
  loaded.value.dispose();
  const handed = await ctx.evalCodeAsync(`__sandbox_args(${JSON.stringify(JSON.stringify(args))})`, 'args.js');
  if (handed.error) {
    handed.error.dispose();
    return { kind: 'exception', message: 'the arguments could not be handed to the program' };
  }
  handed.value.dispose();
  return undefined;
};

/**
 * A trap (work budget spent, or another) or an asyncify error: reported, and the module never reused. After a spent
 * budget nothing is disposed: the heap is half-updated and any call into the engine traps again at once.
 */
const trapped = (err: unknown, ctx: QuickJSAsyncContext, work: SandboxModule['work'], caps: SandboxCaps, stop: SandboxError | undefined): SandboxError => {
  const message = err instanceof Error ? err.message : String(err);
  const spent = workExhausted(work, caps.workUnits);
  if (!spent) {
    try {
      ctx.dispose();
    } catch {
      // The module is discarded anyway.
    }
  }
  // The engine's frames can exhaust the host's stack before QuickJS's own stack cap notices (deep recursion
  // while V8 still runs baseline code with its larger frames): that is the program's recursion, reported as such.
  const hostStack = /maximum call stack size/i.test(message) ? { kind: 'stack' as const, message: 'the program recursed too deep (host stack exhausted)' } : undefined;
  return spent ?? stop ?? hostStack ?? { kind: 'exception', message: `sandbox failure: ${message}` };
};

const interpret = (
  reply: string,
  caps: SandboxCaps,
  logs: string[],
  hostCalls: HostCallRecord[],
  finish: (r: RunProgramResult, reusable: boolean) => ModuleRun,
  fail: (e: SandboxError) => ModuleRun,
): ModuleRun => {
  const tag = reply[0];
  const body = reply.slice(1);
  if (tag === 'R') return finish({ ok: true, value: JSON.parse(body) as Json, logs, hostCalls }, true);
  if (tag === 'O') return fail({ kind: 'output', message: `the result is ${body} characters of JSON; the cap is ${caps.outputChars}` });
  if (tag === 'S') return fail(classifyError(parseDescribed(body), 'load'));
  if (tag === 'E') return fail(classifyError(parseDescribed(body), 'call'));
  return fail({ kind: 'exception', message: 'the sandbox returned no result' });
};

const safeDump = (ctx: QuickJSAsyncContext, handle: QuickJSHandle): { name?: string; message?: string; stack?: string } => {
  try {
    const v = ctx.dump(handle) as unknown;
    if (v && typeof v === 'object') return v as { name?: string; message?: string };
    return { message: String(v) };
  } catch {
    return { message: 'the program failed' };
  }
};
