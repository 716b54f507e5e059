import type { QuickJSAsyncContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { classifyError, parseDescribed, poisonsModule } from './classify';
import type { SandboxModule } from './instantiate';
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

const MAX_HOST_ARGS_CHARS = 100_000;
const MAX_RECORDED_CHARS = 2_000;

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
  const entry = input.entry ?? 'solve';
  const hostFunctions = input.hostFunctions ?? {};
  const logs: string[] = [];
  const hostCalls: HostCallRecord[] = [];
  let logChars = 0;
  // A cap hit inside a host call: the program could catch the error we return, so the next interrupt
  // check (which the program cannot catch) ends it. Running too long is the work budget's business (work.ts).
  let stop: SandboxError | undefined;
  let fatal: unknown;

  // Our own setup and teardown run on a full counter; the budget is the program's alone.
  work.fill(FULL_TANK);
  const ctx = module.newContext();
  const rt = ctx.runtime;
  rt.setMemoryLimit(caps.memoryBytes);
  rt.setMaxStackSize(caps.stackBytes);
  rt.setInterruptHandler(() => !!(stop || fatal));
  rt.setModuleLoader(() => ({ error: new Error('imports are not available in the sandbox') }));

  const finish = (result: RunProgramResult, reusable: boolean): ModuleRun => {
    let disposed = true;
    try {
      ctx.dispose();
    } catch {
      disposed = false;
    }
    if (fatal) throw fatal;
    return { result, reusable: reusable && disposed };
  };
  const fail = (error: SandboxError): ModuleRun =>
    finish({ ok: false, error: stop ?? error, logs, hostCalls }, !stop && !poisonsModule(error.kind));

  try {
    installHostBridge(ctx, {
      onLog(line) {
        logChars += line.length;
        if (logChars > caps.logChars) {
          stop ??= { kind: 'output', message: `console output exceeded ${caps.logChars} characters` };
          return;
        }
        logs.push(line);
      },
      async onCall(name, argsJson) {
        if (stop || fatal) return 'Ethe program was stopped';
        if (hostCalls.length >= caps.hostCalls) {
          stop = { kind: 'host_calls', message: `the program made more than ${caps.hostCalls} calls to host functions` };
          return `E${stop.message}`;
        }
        const fn = Object.prototype.hasOwnProperty.call(hostFunctions, name) ? hostFunctions[name] : undefined;
        if (!fn) return `Eno host function named ${name}`;
        if (argsJson.length > MAX_HOST_ARGS_CHARS) return `Earguments to ${name} are too large`;
        const args = JSON.parse(argsJson) as Json[];
        const record: HostCallRecord = { fn: name, args: clipJson(args) as Json[] };
        hostCalls.push(record);
        try {
          const value = await withTimeout(fn(...args), caps.hostCallMs, name);
          record.result = clipJson(value ?? null);
          return `R${JSON.stringify(value ?? null)}`;
        } catch (err) {
          if (err instanceof Error && err.name === 'LimitError') {
            fatal = err;
            return 'Ethe run reached a limit';
          }
          record.error = err instanceof Error ? err.message : String(err);
          return `E${name} failed: ${record.error}`;
        }
      },
    });
    const prelude = await ctx.evalCodeAsync(buildPrelude(Object.keys(hostFunctions)), 'prelude.js');
    if (prelude.error) {
      prelude.error.dispose();
      return fail({ kind: 'exception', message: 'the sandbox could not start' });
    }
    prelude.value.dispose();

    const args = await ctx.evalCodeAsync(`__sandbox_args(${JSON.stringify(JSON.stringify(input.args ?? []))})`, 'args.js');
    if (args.error) {
      args.error.dispose();
      return fail({ kind: 'exception', message: 'the arguments could not be handed to the program' });
    }
    args.value.dispose();

    const call = `__sandbox_run(${JSON.stringify(input.code)}, ${JSON.stringify(entry)}, ${caps.outputChars})`;
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
    if (stop) return fail(stop);
    return interpret(reply, caps, logs, hostCalls, finish, fail);
  } catch (err) {
    // A trap (work budget spent, or another) or an asyncify error: report it and never reuse this module. After a
    // spent budget nothing is disposed: the heap is half-updated and any call into the engine traps again at once.
    if (fatal) throw fatal;
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
    const error: SandboxError = spent ?? stop ?? hostStack ?? { kind: 'exception', message: `sandbox failure: ${message}` };
    return { result: { ok: false, error, logs, hostCalls }, reusable: false };
  }
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

interface Bridge {
  onLog(line: string): void;
  onCall(name: string, argsJson: string): Promise<string>;
}

const installHostBridge = (ctx: QuickJSAsyncContext, bridge: Bridge) => {
  const call = ctx.newAsyncifiedFunction('__sandbox_host_call', async (nameH, argsH) => {
    const name = nameH && ctx.typeof(nameH) === 'string' ? ctx.getString(nameH) : '';
    const args = argsH && ctx.typeof(argsH) === 'string' ? ctx.getString(argsH) : '[]';
    return ctx.newString(await bridge.onCall(name, args));
  });
  ctx.setProp(ctx.global, '__sandbox_host_call', call);
  call.dispose();
  const log = ctx.newFunction('__sandbox_host_log', (lineH) => {
    bridge.onLog(lineH && ctx.typeof(lineH) === 'string' ? ctx.getString(lineH) : '');
  });
  ctx.setProp(ctx.global, '__sandbox_host_log', log);
  log.dispose();
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

const withTimeout = <T>(promise: Promise<T>, ms: number, name: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
};

/** Keeps stored records small: long strings are cut, the shape is kept. */
const clipJson = (value: Json): Json => {
  const text = JSON.stringify(value);
  if (text === undefined || text.length <= MAX_RECORDED_CHARS) return value;
  return `${text.slice(0, MAX_RECORDED_CHARS)}… [${text.length} characters]`;
};
