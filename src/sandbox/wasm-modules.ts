import asyncVariant from '@jitl/quickjs-wasmfile-release-asyncify';
import asyncWasm from '@jitl/quickjs-wasmfile-release-asyncify/wasm';
import {
  newQuickJSAsyncWASMModuleFromVariant,
  newVariant,
  type QuickJSAsyncWASMModule,
} from 'quickjs-emscripten-core';

// Workers cannot compile WebAssembly from bytes at run time: the wasm arrives precompiled through the
// CompiledWasm rule in wrangler.toml and is handed to the variant. (`getQuickJS()` never resolves there.)

/** A new instance of the asyncify build (host functions may be async). */
export const instantiateAsyncModule = (): Promise<QuickJSAsyncWASMModule> =>
  newQuickJSAsyncWASMModuleFromVariant(newVariant(asyncVariant, { wasmModule: asyncWasm }));
