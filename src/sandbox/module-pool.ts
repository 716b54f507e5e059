/**
 * Keeps instantiated QuickJS WebAssembly modules for reuse within an isolate, and bounds how many run at once.
 *
 * Why a pool and not one shared module: the asyncify build allows one suspended host call per module, so
 * two runs awaiting the model at the same time need two modules. Why modules are thrown away after a
 * bad run: an out-of-memory or aborted run can leave the module's C heap inconsistent (seen here: the next
 * context creation fails with "null function or function signature mismatch"), so only clean runs hand
 * their module back. Why a cap on modules in use: each may hold up to its memory maximum, and WebAssembly memory
 * never shrinks; the process's share is at most `maxActive` × that maximum, plus the idle ones.
 */
export interface ModulePool<M> {
  acquire(): Promise<M>;
  /** Returns the module; `reusable: false` drops it (its memory goes with it). */
  release(module: M, reusable: boolean): void;
  /** Idle modules held (for tests and benchmarks). */
  idle(): number;
  /** Modules handed out and not yet released. */
  active(): number;
}

export const createModulePool = <M>(create: () => Promise<M>, maxIdle = 3, maxActive = 8): ModulePool<M> => {
  const idle: M[] = [];
  const waiting: (() => void)[] = [];
  let active = 0;
  return {
    async acquire() {
      // A slot first, then a module: callers past the cap wait for a release instead of adding memory.
      while (active >= maxActive) await new Promise<void>((resolve) => waiting.push(resolve));
      active++;
      try {
        return idle.pop() ?? (await create());
      } catch (err) {
        active--;
        waiting.shift()?.();
        throw err;
      }
    },
    release(module, reusable) {
      active--;
      if (reusable && idle.length < maxIdle) idle.push(module);
      waiting.shift()?.();
    },
    idle: () => idle.length,
    active: () => active,
  };
};
