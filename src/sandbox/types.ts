/** JSON values crossing the sandbox boundary: the only thing that goes in or comes out. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type HostFunction = (...args: Json[]) => Promise<Json>;

export interface SandboxCaps {
  /**
   * Interrupt-handler calls before the run is stopped. QuickJS asks roughly every 10,000 bytecode
   * branches or calls; counting calls is the only clock that advances inside synchronous code in workerd.
   */
  interrupts: number;
  /**
   * Work units one attempt may spend inside the QuickJS engine, built-ins included (cli/build-quickjs.mjs: one unit
   * per loop turn and per call-making function entry, one per 256 bytes copied). The bound on CPU that no built-in
   * escapes; see DEFAULT_WORK_UNITS.
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
 * Calibrated on this project's 2-core machine in workerd (docs/HOSTILE.md, group sandbox-cpu): the engine spends
 * between 40 and 190 million units a second depending on the work, so 20 million stop any attempt within about
 * half a second of CPU, while a table program of the test suites uses well under a million.
 */
export const DEFAULT_WORK_UNITS = 20_000_000;

export const DEFAULT_CAPS: SandboxCaps = {
  interrupts: 600,
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
