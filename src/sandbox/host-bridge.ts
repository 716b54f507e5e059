import type { QuickJSAsyncContext } from 'quickjs-emscripten-core';
import type { HostCallRecord, Json, RunProgramInput, SandboxCaps, SandboxError } from './types';

const MAX_HOST_ARGS_CHARS = 100_000;
const MAX_RECORDED_CHARS = 2_000;

/**
 * What one program run may do through the host: its console lines and its calls to host functions, each against its
 * cap. A cap hit inside a host call cannot be an exception the program sees (it could catch it), so it is kept in
 * `stop` and the next interrupt check, which the program cannot catch, ends the run. A host error named `LimitError`
 * (a run limit) is kept in `fatal` and rethrown by the runner.
 */
export class HostSession {
  readonly logs: string[] = [];
  readonly hostCalls: HostCallRecord[] = [];
  stop: SandboxError | undefined;
  fatal: unknown;
  private logChars = 0;

  constructor(
    private readonly caps: SandboxCaps,
    private readonly hostFunctions: NonNullable<RunProgramInput['hostFunctions']>,
  ) {}

  get stopped(): boolean {
    return !!(this.stop || this.fatal);
  }

  onLog(line: string): void {
    this.logChars += line.length;
    if (this.logChars > this.caps.logChars) {
      this.stop ??= { kind: 'output', message: `console output exceeded ${this.caps.logChars} characters` };
      return;
    }
    this.logs.push(line);
  }

  /** The dispatcher's answer: `R` + the JSON result, or `E` + an error message the program sees. */
  async onCall(name: string, argsJson: string): Promise<string> {
    if (this.stopped) return 'Ethe program was stopped';
    if (this.hostCalls.length >= this.caps.hostCalls) {
      this.stop = { kind: 'host_calls', message: `the program made more than ${this.caps.hostCalls} calls to host functions` };
      return `E${this.stop.message}`;
    }
    const fn = Object.prototype.hasOwnProperty.call(this.hostFunctions, name) ? this.hostFunctions[name] : undefined;
    if (!fn) return `Eno host function named ${name}`;
    if (argsJson.length > MAX_HOST_ARGS_CHARS) return `Earguments to ${name} are too large`;
    const args = JSON.parse(argsJson) as Json[];
    const record: HostCallRecord = { fn: name, args: clipJson(args) as Json[] };
    this.hostCalls.push(record);
    try {
      const value = await withTimeout(fn(...args), this.caps.hostCallMs, name);
      record.result = clipJson(value ?? null);
      return `R${JSON.stringify(value ?? null)}`;
    } catch (err) {
      if (err instanceof Error && err.name === 'LimitError') {
        this.fatal = err;
        return 'Ethe run reached a limit';
      }
      record.error = err instanceof Error ? err.message : String(err);
      return `E${name} failed: ${record.error}`;
    }
  }
}

/**
 * Host functions reach the program through one dispatcher that carries JSON strings only, so the program never holds
 * a host object.
 */
export const installHostBridge = (ctx: QuickJSAsyncContext, session: HostSession) => {
  const call = ctx.newAsyncifiedFunction('__sandbox_host_call', async (nameH, argsH) => {
    const name = nameH && ctx.typeof(nameH) === 'string' ? ctx.getString(nameH) : '';
    const args = argsH && ctx.typeof(argsH) === 'string' ? ctx.getString(argsH) : '[]';
    return ctx.newString(await session.onCall(name, args));
  });
  ctx.setProp(ctx.global, '__sandbox_host_call', call);
  call.dispose();
  const log = ctx.newFunction('__sandbox_host_log', (lineH) => {
    session.onLog(lineH && ctx.typeof(lineH) === 'string' ? ctx.getString(lineH) : '');
  });
  ctx.setProp(ctx.global, '__sandbox_host_log', log);
  log.dispose();
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
