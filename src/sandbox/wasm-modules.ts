import asyncVariant from '@jitl/quickjs-wasmfile-release-asyncify';
import asyncWasm from '@jitl/quickjs-wasmfile-release-asyncify/wasm';
import {
  newQuickJSAsyncWASMModuleFromVariant,
  newVariant,
  type QuickJSAsyncWASMModule,
} from 'quickjs-emscripten-core';
import { DEFAULT_CAPS } from './types';

// Workers cannot compile WebAssembly from bytes at run time: the wasm arrives precompiled through the
// CompiledWasm rule in wrangler.toml and is handed to the variant. (`getQuickJS()` never resolves there.)

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

export interface SandboxModule {
  module: QuickJSAsyncWASMModule;
  memory: WebAssembly.Memory;
}

/** A new instance of the asyncify build (host functions may be async) in its own bounded memory. */
export const instantiateAsyncModule = async (): Promise<SandboxModule> => {
  const memory = new WebAssembly.Memory({ initial: INITIAL_MEMORY_BYTES / PAGE, maximum: MAX_MODULE_MEMORY_BYTES / PAGE });
  const module = await newQuickJSAsyncWASMModuleFromVariant(newVariant(asyncVariant, { wasmModule: asyncWasm, wasmMemory: memory }));
  return { module, memory };
};
