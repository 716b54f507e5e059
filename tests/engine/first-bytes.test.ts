import { describe, expect, it } from 'vitest';
import { firstEventOnItsWay } from '../../src/runs/first-bytes';

/** Whether a promise has settled, after everything already queued has run. */
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 0));
  return done;
};

/** Which of these set-ups may run by now. */
const mayRun = (...setUps: Array<Promise<void>>) => Promise.all(setUps.map(settled));

describe('first bytes before set-ups', () => {
  it("holds a run's set-up until the first events on their way when its own left have left too", async () => {
    const [a, b] = [firstEventOnItsWay(), firstEventOnItsWay()];
    const aSetUp = a();
    // B's first event is still on its way: A's run waits.
    expect(await mayRun(aSetUp)).toEqual([false]);
    expect(await mayRun(aSetUp, b())).toEqual([true, true]);
  });

  it('is not held by a stream that began after its first event left, so steady traffic never starves it', async () => {
    const [a, b] = [firstEventOnItsWay(), firstEventOnItsWay()];
    const aSetUp = a();
    const c = firstEventOnItsWay();
    const bSetUp = b();
    // C's first event began after A's left: A does not wait for it. It was on its way when B's left: B does.
    expect(await mayRun(aSetUp, bSetUp)).toEqual([true, false]);
    expect(await mayRun(bSetUp, c())).toEqual([true, true]);
  });

  it('answers the same once asked again, and at once when nothing else is on its way', async () => {
    const a = firstEventOnItsWay();
    const first = a();
    expect(a()).toBe(first);
    expect(await mayRun(first)).toEqual([true]);
  });
});
