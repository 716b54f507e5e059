/** Types for workerd-watch.mjs: a dev server's workerd memory and /healthz while a test's work runs. */
export declare const rssOf: (pid: number) => number;
export declare const workerdOf: (ancestor: number) => number | undefined;
export interface Watched<T> {
  value: T;
  /** VmRSS of the dev server's workerd before the work and at its peak, in bytes (NaN off Linux). */
  rssBefore: number;
  rssPeak: number;
  /** /healthz asked one request after another meanwhile: how often, how often `ok: true`, and the warnings seen. */
  health: { asked: number; ok: number; warnings: string[] };
}
export declare const watchWorkerd: <T>(server: { url: string; pid: number }, work: () => Promise<T>) => Promise<Watched<T>>;
