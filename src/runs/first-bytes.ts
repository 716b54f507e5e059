/** The longest a run's set-up waits for first events to leave (a reader that never asks for more, say). */
export const MAX_HOLD_MS = 1_000;

let created = 0;
const onTheirWay = new Set<number>();
const waiting = new Set<{ upTo: number; go: () => void }>();

const lowestOnItsWay = () => {
  let lowest = Number.POSITIVE_INFINITY;
  for (const n of onTheirWay) if (n < lowest) lowest = n;
  return lowest;
};

const wake = () => {
  const lowest = lowestOnItsWay();
  for (const w of waiting) if (w.upTo < lowest) w.go();
};

/**
 * First bytes before set-ups. A streamed answer's first event is cheap, and it is what its user waits for; setting its
 * run up (the object's storage, the first step, the first model call) is the costly part, and where the run objects
 * share the isolate with the requests (`npm run dev`, the tests) it runs on the same thread as every other request's
 * first event. So each new stream says that its first event is on its way, and the call it gets back is made once
 * that event has left: it answers when the run may be set up, which is once every first event that was on its way at
 * that moment has left too. Later streams do not hold it, so under steady load a set-up waits about one event's way
 * out, never for a quiet moment; and never longer than MAX_HOLD_MS.
 */
export const firstEventOnItsWay = (): (() => Promise<void>) => {
  const mine = ++created;
  onTheirWay.add(mine);
  let left: Promise<void> | undefined;
  return () => {
    if (left) return left;
    onTheirWay.delete(mine);
    wake();
    const upTo = created;
    if (lowestOnItsWay() > upTo) return (left = Promise.resolve());
    return (left = new Promise<void>((resolve) => {
      const w = {
        upTo,
        go: () => {
          clearTimeout(timer);
          waiting.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.go, MAX_HOLD_MS);
      waiting.add(w);
    }));
  };
};
