import asyncVariant from '@jitl/quickjs-wasmfile-release-asyncify';
import { newQuickJSAsyncWASMModuleFromVariant, newVariant, type QuickJSAsyncWASMModule } from 'quickjs-emscripten-core';
import { DEFAULT_CAPS } from './types';

const PAGE = 64 * 1024;
/** The build's own starting size (Emscripten's INITIAL_MEMORY); a module that grew past it is not reused. */
export const INITIAL_MEMORY_BYTES = 16 * 1024 * 1024;
/**
 * The hard cap on one module's linear memory: the program's 16 MB plus 8 MB for QuickJS itself (measured: with
 * 8 MB of headroom a program gets one 8 MB array and fails on the second; with 4 MB the runtime breaks).
 * It has to live here because QuickJS's own limit cannot bind in an Emscripten build: there it cannot read block
 * sizes (malloc_usable_size is 0), so it counts allocations, not bytes, and `new Array(1e6).fill(1)` in a loop grew
 * a module to 2 GB. With a maximum on the memory, `memory.grow` fails, malloc returns NULL and QuickJS throws
 * "out of memory" like it should.
 */
export const MAX_MODULE_MEMORY_BYTES = DEFAULT_CAPS.memoryBytes + 8 * 1024 * 1024;

/** The work counter compiled into the engine by cli/build-quickjs.mjs. */
export interface WorkMeter {
  /** Units left; below zero the engine has trapped. */
  left(): number;
  /** Fills the counter for the next attempt (at most 2^31 - 1). */
  fill(units: number): void;
}

export interface SandboxModule {
  module: QuickJSAsyncWASMModule;
  memory: WebAssembly.Memory;
  work: WorkMeter;
}

interface MeterExports {
  __fuel_get(): number;
  __fuel_set(units: number): void;
}

/**
 * Instantiates the metered asyncify build from its compiled module. The instance is made here (Emscripten's
 * `instantiateWasm` hook) rather than by quickjs-emscripten, because only the instance exposes the work counter.
 */
export const instantiateSandboxModule = async (compiled: WebAssembly.Module): Promise<SandboxModule> => {
  const memory = new WebAssembly.Memory({ initial: INITIAL_MEMORY_BYTES / PAGE, maximum: MAX_MODULE_MEMORY_BYTES / PAGE });
  let meter: MeterExports | undefined;
  const instantiateWasm = (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => {
    const instance = new WebAssembly.Instance(compiled, imports);
    meter = instance.exports as unknown as MeterExports;
    done(instance, compiled);
    return instance.exports;
  };
  const module = await newQuickJSAsyncWASMModuleFromVariant(
    newVariant(asyncVariant, { wasmMemory: memory, emscriptenModule: { instantiateWasm } as never }),
  );
  const m = meter;
  if (!m || typeof m.__fuel_get !== 'function') throw new Error('the QuickJS build has no work meter; run node cli/build-quickjs.mjs');
  return {
    module,
    memory,
    work: { left: () => m.__fuel_get(), fill: (units) => m.__fuel_set(Math.max(1, Math.min(0x7fffffff, Math.floor(units)))) },
  };
};
