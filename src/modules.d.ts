// Module shapes for the wrangler rules in wrangler.toml (Text and CompiledWasm imports).
declare module '*.sql' {
  const text: string;
  export default text;
}
declare module '*.txt' {
  const text: string;
  export default text;
}
declare module '*.ttl' {
  const text: string;
  export default text;
}
declare module '*.md' {
  const text: string;
  export default text;
}
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
declare module '@jitl/quickjs-wasmfile-release-asyncify/wasm' {
  const module: WebAssembly.Module;
  export default module;
}
