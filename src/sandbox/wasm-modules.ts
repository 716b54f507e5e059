import meteredWasm from '../generated/quickjs/quickjs.wasm';
import { instantiateSandboxModule, type SandboxModule } from './instantiate';

export { INITIAL_MEMORY_BYTES, MAX_MODULE_MEMORY_BYTES, type SandboxModule } from './instantiate';

// Workers cannot compile WebAssembly from bytes at run time: the wasm arrives precompiled through the
// CompiledWasm rule in wrangler.toml. It is the metered build of cli/build-quickjs.mjs, never the published one.

/** A new instance of the metered asyncify build (host functions may be async) in its own bounded memory. */
export const instantiateAsyncModule = (): Promise<SandboxModule> => instantiateSandboxModule(meteredWasm);
