/** JSON values crossing the sandbox boundary: the only thing that goes in or comes out. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type HostFunction = (...args: Json[]) => Promise<Json>;

export interface SandboxCaps {
  /**
   * Work units one attempt may spend inside the QuickJS engine, built-ins included (cli/build-quickjs.mjs: one unit
   * per loop turn and per call-making function entry, one per 256 bytes copied). The one bound on CPU, which no
   * built-in escapes (QuickJS's interrupt handler sees bytecode only, and clocks stand still in synchronous workerd
   * code); see DEFAULT_WORK_UNITS.
   */
  workUnits: number;
  /** Bytes the QuickJS runtime may allocate. */
  memoryBytes: number;
  /** Bytes of interpreter stack; bounds recursion depth. */
  stackBytes: number;
  /** Calls to host functions per attempt. */
  hostCalls: number;
  /** Characters of the result's JSON. */
  outputChars: number;
  /** Characters of console output kept; more stops the run. */
  logChars: number;
  /** Milliseconds one host call may take (I/O time does advance the clock). */
  hostCallMs: number;
}

/**
 * Calibrated in workerd on this project's 2-core machine (`npm run bench:hostile -- sandbox-cpu`, docs/LIMITS.md): a
 * program-mode attempt that spends all 10 million units costs 0.07-0.14 s of CPU with its run step around it, while
 * the table program of `npm run bench:sandbox` needs about 18,000.
 */
export const DEFAULT_WORK_UNITS = 10_000_000;

export const DEFAULT_CAPS: SandboxCaps = {
  workUnits: DEFAULT_WORK_UNITS,
  memoryBytes: 16 * 1024 * 1024,
  stackBytes: 256 * 1024,
  hostCalls: 40,
  outputChars: 20_000,
  logChars: 8_000,
  hostCallMs: 120_000,
};

export type SandboxErrorKind = 'timeout' | 'cpu_budget' | 'memory' | 'stack' | 'host_calls' | 'output' | 'exception' | 'syntax';

export interface SandboxError {
  kind: SandboxErrorKind;
  message: string;
  stack?: string;
}

export interface HostCallRecord {
  fn: string;
  args: Json[];
  result?: Json;
  error?: string;
}

export interface RunProgramInput {
  code: string;
  /** Name of the global function to call after the code is evaluated. */
  entry?: string;
  args?: Json[];
  hostFunctions?: Record<string, HostFunction>;
  caps?: Partial<SandboxCaps>;
}

export type RunProgramResult =
  | { ok: true; value: Json; logs: string[]; hostCalls: HostCallRecord[] }
  | { ok: false; error: SandboxError; logs: string[]; hostCalls: HostCallRecord[] };

export type ExpressionResult = { ok: true; value: number | string | boolean } | { ok: false; error: string };
