/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts, whichever is first. For work that may
 * ignore the signal (a hung model call, a binding, a tool): the caller stops waiting, and the abandoned result is
 * dropped. Without a signal it is `work` itself.
 */
export const untilAborted = <T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> =>
  !signal
    ? work
    : new Promise<T>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
