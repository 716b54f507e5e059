#!/usr/bin/env node
// Builds the QuickJS engine the sandbox runs: the published asyncify build with a work budget compiled in.
//
// Why: QuickJS asks its interrupt handler only between bytecodes, so a built-in whose cost grows with its input
// (a long-needle indexOf, JSON.stringify of a big array, a sort, a backtracking regex) runs to its end uncounted, and
// workerd's clock does not move during synchronous code, so nothing outside the engine can stop it. So the budget
// lives inside the WebAssembly, where every native loop is:
// - one work unit at every loop head and at the entry of every function that calls another (so recursion counts too) (the interpreter's dispatch loop, every built-in's
//   loop, the regex engine's loop: whatever the program calls, it turns through one of these);
// - bulk copies and fills (memory.copy/memory.fill run natively with no loop around them) are charged by their size,
//   one unit per 256 bytes;
// - below zero units the engine traps (`unreachable`). A trap leaves QuickJS's heap half-updated, so the sandbox
//   throws that module away (src/sandbox/module-pool.ts) and the next attempt gets a fresh instance.
// The walk below visits every expression of every function and refuses expression kinds it does not know, so a
// QuickJS upgrade that brings new kinds fails the build instead of leaving loops unmetered.
//
// The counter is internal (no exported global: a plain global is cheaper to touch than an exported mutable one) and
// read or set through two exported functions, `__fuel_get` and `__fuel_set`.
//
// Output (git-ignored, rebuilt when the inputs change): src/generated/quickjs/quickjs.wasm.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const variantDir = dirname(require.resolve('@jitl/quickjs-wasmfile-release-asyncify/package.json'));
const outDir = join(root, 'src/generated/quickjs');
const RECIPE = 'fuel-v2';
/** Bulk copies and fills cost one unit per 2^COPY_SHIFT bytes. */
const COPY_SHIFT = 8;

const meter = async (bytes) => {
  const { default: binaryen } = await import('binaryen');
  const F = binaryen.Features;
  const m = binaryen.readBinary(bytes);
  // Exactly the features the published build uses (Emscripten's defaults); "all" would let binaryen emit encodings
  // that V8 does not read.
  m.setFeatures(F.MutableGlobals | F.NontrappingFPToInt | F.BulkMemory | F.BulkMemoryOpt | F.SignExt | F.Multivalue);
  const { i32, none } = binaryen;
  m.addGlobal('fuel', i32, true, m.i32.const(0x7fffffff));
  const fuel = () => m.global.get('fuel', i32);
  const trapBelowZero = () => m.if(m.i32.lt_s(fuel(), m.i32.const(0)), m.unreachable());
  m.addFunction('fuel_tick', none, none, [], m.block(null, [m.global.set('fuel', m.i32.sub(fuel(), m.i32.const(1))), trapBelowZero()]));
  m.addFunction(
    'fuel_charge',
    i32,
    i32,
    [],
    m.block(
      null,
      [
        m.global.set('fuel', m.i32.sub(fuel(), m.i32.shr_u(m.local.get(0, i32), m.i32.const(COPY_SHIFT)))),
        trapBelowZero(),
        m.local.get(0, i32),
      ],
      i32,
    ),
  );
  m.addFunction('fuel_get', none, i32, [], fuel());
  m.addFunction('fuel_set', i32, none, [], m.global.set('fuel', m.local.get(0, i32)));
  m.addFunctionExport('fuel_get', '__fuel_get');
  m.addFunctionExport('fuel_set', '__fuel_set');

  const ids = binaryen;
  // Inline rather than a call: a fifth faster in tight loops for 1.5 KB more gzip.
  const tick = () => m.block(null, [m.global.set('fuel', m.i32.sub(fuel(), m.i32.const(1))), trapBelowZero()]);
  const ticked = (expr) => m.block(null, [tick(), expr], binaryen.getExpressionType(expr));
  // Child slots per expression kind; every kind the build contains must be listed here.
  const childKeys = new Map([
    [ids.BlockId, ['children']],
    [ids.IfId, ['condition', 'ifTrue', 'ifFalse']],
    [ids.LoopId, ['body']],
    [ids.BreakId, ['condition', 'value']],
    [ids.SwitchId, ['condition', 'value']],
    [ids.CallId, ['operands']],
    [ids.CallIndirectId, ['target', 'operands']],
    [ids.LocalGetId, []],
    [ids.LocalSetId, ['value']],
    [ids.GlobalGetId, []],
    [ids.GlobalSetId, ['value']],
    [ids.LoadId, ['ptr']],
    [ids.StoreId, ['ptr', 'value']],
    [ids.ConstId, []],
    [ids.UnaryId, ['value']],
    [ids.BinaryId, ['left', 'right']],
    [ids.SelectId, ['ifTrue', 'ifFalse', 'condition']],
    [ids.DropId, ['value']],
    [ids.ReturnId, ['value']],
    [ids.MemorySizeId, []],
    [ids.MemoryGrowId, ['delta']],
    [ids.NopId, []],
    [ids.UnreachableId, []],
    [ids.MemoryCopyId, ['dest', 'source', 'size']],
    [ids.MemoryFillId, ['dest', 'value', 'size']],
  ]);
  const counts = { functions: 0, loops: 0, bulk: 0 };
  const own = new Set(['fuel_tick', 'fuel_charge', 'fuel_get', 'fuel_set']);
  for (let f = 0; f < m.getNumFunctions(); f++) {
    const fn = m.getFunctionByIndex(f);
    const info = binaryen.getFunctionInfo(fn);
    if (info.module || own.has(info.name)) continue; // imported, or ours
    const stack = [info.body];
    let calls = false;
    while (stack.length) {
      const expr = stack.pop();
      if (!expr) continue;
      const id = binaryen.getExpressionId(expr);
      const keys = childKeys.get(id);
      if (!keys) throw new Error(`build-quickjs: expression kind ${id} in ${info.name} is not metered; extend the walk`);
      if (!keys.length) continue;
      const e = binaryen.getExpressionInfo(expr);
      for (const key of keys) {
        const v = e[key];
        if (Array.isArray(v)) stack.push(...v);
        else if (v) stack.push(v);
      }
      if (id === ids.CallId || id === ids.CallIndirectId) calls = true;
      if (id === ids.LoopId) {
        binaryen.Loop.setBody(expr, ticked(e.body));
        counts.loops++;
      } else if (id === ids.MemoryCopyId) {
        binaryen.MemoryCopy.setSize(expr, m.call('fuel_charge', [e.size], i32));
        counts.bulk++;
      } else if (id === ids.MemoryFillId) {
        binaryen.MemoryFill.setSize(expr, m.call('fuel_charge', [e.size], i32));
        counts.bulk++;
      }
    }
    // Only a function that calls can be part of a recursion; one that does not ends after a bounded number of steps
    // between its loop heads, so it needs no tick of its own.
    if (calls) {
      binaryen.Function.setBody(fn, ticked(info.body));
      counts.functions++;
    }
  }
  // binaryen's own optimiser over the result (what Emscripten runs after its asyncify pass too) takes back most of
  // what the meter adds to the upload: 17 KB more gzip without it, 6.5 KB with it. It keeps every global write and
  // every trap, so the meter stays whole. It is the slow part of this build (~40 s), which the stamp caches.
  binaryen.setOptimizeLevel(2);
  binaryen.setShrinkLevel(1);
  m.optimize();
  if (!m.validate()) throw new Error('metered QuickJS module does not validate');
  const out = Buffer.from(m.emitBinary());
  m.dispose();
  return { out, counts };
};

export const buildQuickjs = async ({ quiet = false } = {}) => {
  const wasmIn = readFileSync(join(variantDir, 'dist/emscripten-module.wasm'));
  const script = readFileSync(fileURLToPath(import.meta.url));
  const stamp = createHash('sha256').update(RECIPE).update(wasmIn).update(script).digest('hex');
  const stampFile = join(outDir, 'stamp');
  const target = join(outDir, 'quickjs.wasm');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(target)) return;
  const started = Date.now();
  mkdirSync(outDir, { recursive: true });
  const { out, counts } = await meter(wasmIn);
  writeFileSync(target, out);
  writeFileSync(stampFile, stamp);
  if (!quiet) {
    console.log(
      `quickjs: metered engine built in ${Date.now() - started} ms (${(out.length / 1e6).toFixed(2)} MB; ` +
        `${counts.functions} functions, ${counts.loops} loops, ${counts.bulk} bulk copies/fills metered)`,
    );
  }
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildQuickjs({ quiet: process.argv.includes('--quiet') });
