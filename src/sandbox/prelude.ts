/**
 * Code evaluated in every fresh sandbox context before the program. It captures the intrinsics the harness
 * relies on (so a program that replaces JSON or eval only breaks itself), turns the one host dispatcher
 * into named JSON-in/JSON-out functions, installs a console that reports to the host, and defines the
 * non-writable entries `__sandbox_args`, which parses the entry's arguments (before the program's work budget
 * starts: their size is the request's, not the program's doing), and `__sandbox_run`, which loads the program and
 * calls its entry point with them.
 *
 * Replies of `__sandbox_run` are strings tagged by their first character:
 *   R<json>     the entry's return value
 *   S<error>    the program failed while loading (syntax error or top-level throw)
 *   E<error>    the entry threw
 *   O<length>   the result's JSON is longer than the output cap
 * where <error> is JSON {name, message, stack?}.
 */
/** Longest array a built-in method may walk (about 0.1 s of native looping). */
export const MAX_NATIVE_ITERATION = 1_000_000;

const GUARDED_METHODS = [
  'forEach', 'map', 'filter', 'some', 'every', 'reduce', 'reduceRight', 'indexOf', 'lastIndexOf', 'includes',
  'fill', 'find', 'findIndex', 'findLast', 'findLastIndex', 'join', 'toString', 'toLocaleString', 'copyWithin',
  'reverse', 'slice', 'splice', 'sort', 'flat', 'flatMap', 'concat', 'toReversed', 'toSorted', 'toSpliced', 'with',
];

/** Every built-in array method of arrays and typed arrays, wrapped in a length check. */
const ARRAY_GUARD = `  // Built-in array methods loop in C, where QuickJS never calls the interrupt handler, and a sparse array
  // costs no memory: new Array(1e9).includes(1) would run for minutes. Refuse such lengths up front.
  const apply = Reflect.apply, RangeErrorCtor = G.RangeError;
  const guard = (proto, label) => {
    for (const name of ${JSON.stringify(GUARDED_METHODS)}) {
      const original = proto[name];
      if (typeof original !== 'function') continue;
      const guarded = { [name](...args) {
        const length = this === null || this === undefined ? 0 : Number(this.length);
        if (length > ${MAX_NATIVE_ITERATION}) {
          throw new RangeErrorCtor(label + '.' + name + ' over ' + length + ' elements: the sandbox allows at most ${MAX_NATIVE_ITERATION}');
        }
        return apply(original, this, args);
      } }[name];
      Object.defineProperty(proto, name, { value: guarded, writable: true, configurable: true, enumerable: false });
    }
  };
  guard(Array.prototype, 'Array');
  guard(Object.getPrototypeOf(Uint8Array.prototype), 'TypedArray');
`;

/** The intrinsics the harness keeps for itself, and how it shows values and describes errors to the host. */
const HELPERS = `  const stringify = JSON.stringify, parse = JSON.parse, indirectEval = G.eval;
  const PromiseCtor = G.Promise, ErrorCtor = G.Error, StringCtor = G.String, defineProperty = Object.defineProperty;
  const show = (v) => {
    try {
      if (typeof v === 'string') return v;
      const s = stringify(v);
      return s === undefined ? StringCtor(v) : s;
    } catch (e) {
      try { return StringCtor(v); } catch (e2) { return '[' + typeof v + ']'; }
    }
  };
  const describe = (e) => {
    try {
      if (e !== null && typeof e === 'object' && typeof e.message === 'string') {
        const name = typeof e.name === 'string' ? e.name : 'Error';
        return stringify({ name: name, message: e.message, stack: typeof e.stack === 'string' ? e.stack : undefined });
      }
    } catch (ignored) {}
    return stringify({ name: 'ThrownValue', message: 'the program threw a value that is not an Error: ' + show(e) });
  };
  const callHost = (name, args) => {
    const reply = hostCall(name, stringify(args));
    if (reply[0] === 'R') return parse(reply.slice(1));
    throw new ErrorCtor(reply.slice(1));
  };
`;

/** The console, whose lines go to the host. */
const CONSOLE = `  const log = (...args) => { hostLog(args.map(show).join(' ')); };
  G.console = { log: log, info: log, warn: log, error: log, debug: log };
`;

/** The two non-writable entries the host calls: `__sandbox_args` and `__sandbox_run` (see the reply tags above). */
const HARNESS = `  let entryArgs = [];
  defineProperty(G, '__sandbox_args', {
    value: function (argsJson) { entryArgs = parse(argsJson); },
    writable: false, configurable: false, enumerable: false,
  });
  defineProperty(G, '__sandbox_run', {
    value: function (code, entry, maxOut) {
      try { indirectEval(code); } catch (e) { return 'S' + describe(e); }
      try {
        const fn = G[entry];
        if (typeof fn !== 'function') throw new ErrorCtor('the program does not define a function named ' + entry);
        const out = fn.apply(undefined, entryArgs);
        if (out instanceof PromiseCtor) {
          throw new ErrorCtor(entry + ' returned a Promise: write it as a plain function (not async); the helper functions return their values directly');
        }
        const json = stringify(out === undefined ? null : out);
        const text = json === undefined ? 'null' : json;
        return text.length > maxOut ? 'O' + text.length : 'R' + text;
      } catch (e) {
        return 'E' + describe(e);
      }
    },
    writable: false, configurable: false, enumerable: false,
  });
`;

/** Each host function as a named global that looks synchronous to the program: JSON in, JSON out through one dispatcher. */
const hostFunctions = (hostNames: string[]) => `  for (const name of ${JSON.stringify(hostNames)}) {
    G[name] = function (...args) { return callHost(name, args); };
  }
`;

export const buildPrelude = (hostNames: string[]): string => `
(function (hostCall, hostLog) {
  'use strict';
  const G = globalThis;
${ARRAY_GUARD}${HELPERS}${hostFunctions(hostNames)}${CONSOLE}${HARNESS}})(__sandbox_host_call, __sandbox_host_log);
delete globalThis.__sandbox_host_call;
delete globalThis.__sandbox_host_log;
`;
