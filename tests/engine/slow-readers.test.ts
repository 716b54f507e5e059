import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_UNREAD_BYTES, SLICE_BYTES, SseFanout, type StoredEvents } from '../../durable-objects/run/sse-fanout';
import type { RunEvent } from '../../src/engine/types';
import { installScript } from '../../src/llm/scripted';
import { get, parseSse, post } from './helpers';

// Issue 33: a client that opens a run's event stream and never reads costs the run a small, bounded backlog, and
// still gets every stored event, in order and whole, once it reads.

/** Stored events as the run's object keeps them: JSON text by id. */
const storeOf = (events: RunEvent[]): StoredEvents => ({
  nextAfter: (after) => {
    const e = events.find((x) => x.id > after);
    return e ? { id: e.id, type: e.type, data: JSON.stringify(e.data) } : undefined;
  },
  lastId: () => events.at(-1)?.id ?? 0,
});

/** A stream whose reader is ours to drive, and how many bytes the fanout has handed it so far. */
const stream = () => {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const counted = { written: 0 };
  const write = writer.write.bind(writer);
  writer.write = (chunk?: Uint8Array) => {
    counted.written += chunk?.length ?? 0;
    return write(chunk);
  };
  return { writer, readable, counted };
};

const readAll = async (readable: ReadableStream<Uint8Array>) => new TextDecoder().decode(await new Response(readable).arrayBuffer());
const tick = () => new Promise((r) => setTimeout(r, 10));

const event = (id: number, text: string): RunEvent => ({ id, type: 'observation', data: { tool: 'read', output: text, ms: 1 }, at: 0 }) as RunEvent;

describe('SseFanout: one small backlog per client', () => {
  it('writes a client that does not read at most its backlog, however much the run stores, and all of it once it reads', async () => {
    const events: RunEvent[] = [];
    const fanout = new SseFanout(storeOf(events));
    const slow = stream();
    fanout.subscribe(slow.writer, 0, true, 60_000);
    // 40 observations of 50 KB and one 900 KB answer-sized event, stored while the client reads nothing.
    for (let i = 1; i <= 41; i++) {
      events.push(event(i, `${i}:`.padEnd(i === 41 ? 900_000 : 50_000, 'x')));
      fanout.broadcast([events.at(-1)!]);
      fanout.delta({ call: 1, purpose: 'agent', text: 'live text' });
      await tick();
    }
    expect(slow.counted.written).toBeLessThanOrEqual(MAX_UNREAD_BYTES + SLICE_BYTES);
    fanout.closeAll();
    const got = parseSse(await readAll(slow.readable), { deltas: true });
    expect(got.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(got.map((e) => e.data.output)).toEqual(events.map((e) => (e.data as { output: string }).output));
    // Behind from the first event on: it was never up to date, so it got no live text.
    expect(got.filter((e) => e.event === 'delta')).toEqual([]);
    expect(fanout.listening()).toBe(false);
  });

  it('sends live text to a client that keeps up, and says so when some was skipped while it fell behind', async () => {
    const events: RunEvent[] = [event(1, 'start')];
    const fanout = new SseFanout(storeOf(events));
    const s = stream();
    fanout.subscribe(s.writer, 0, true, 60_000);
    const reader = s.readable.getReader();
    const texts: string[] = [];
    let paused = false;
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        texts.push(new TextDecoder().decode(value));
        // A reader that stops for a while after its first live piece.
        if (!paused && texts.join('').includes('first')) {
          paused = true;
          await new Promise((r) => setTimeout(r, 300));
        }
      }
    })();
    await tick();
    fanout.delta({ call: 1, purpose: 'final', answer: true, text: 'first' });
    await tick();
    // While it waits, more live text than its delta backlog allows: some is skipped.
    for (let i = 0; i < 40; i++) fanout.delta({ call: 1, purpose: 'final', answer: true, text: 'y'.repeat(1_000) });
    await new Promise((r) => setTimeout(r, 400));
    fanout.delta({ call: 1, purpose: 'final', answer: true, text: 'last' });
    await tick();
    fanout.closeAll();
    await pump;
    const deltas = parseSse(texts.join(''), { deltas: true }).filter((e) => e.event === 'delta');
    expect(deltas[0]!.data.text).toBe('first');
    expect(deltas.length).toBeLessThan(42);
    expect(deltas.at(-1)!.data).toMatchObject({ text: 'last', skipped: true });
  });

  it('forgets a client that went away, with what it held', async () => {
    const events: RunEvent[] = [event(1, 'x'.repeat(200_000))];
    const fanout = new SseFanout(storeOf(events));
    const s = stream();
    fanout.subscribe(s.writer, 0, true, 60_000);
    await tick();
    await s.readable.cancel();
    await tick();
    expect(fanout.listening()).toBe(false);
  });
});

describe('a run followed by a client that does not read', () => {
  it('holds a small backlog in the run object, and the client reads every event whole afterwards', { timeout: 120_000 }, async () => {
    installScript({ final: ['The answer is '.padEnd(600_000, 'z')] });
    const started = await post('/v1/answer', { question: 'a long answer, please', mode: 'test-tool-loop', options: { calls: 2, delayMs: 200 } }, { accept: 'text/event-stream' });
    const runId = started.headers.get('x-run-id')!;
    const follower = await get(`/v1/runs/${runId}/events`);
    const own = parseSse(await started.text());
    expect(own.at(-1)!.event).toBe('done');
    // The run has ended; its follower has read nothing yet.
    await runInDurableObject(env.RUNS.get(env.RUNS.idFromName(runId)), (run: unknown) => {
      const subscribers = [...(run as { fanout: { subscribers: Set<{ unread: number }> } }).fanout.subscribers];
      expect(subscribers.length).toBeGreaterThan(0);
      for (const s of subscribers) expect(s.unread).toBeLessThanOrEqual(MAX_UNREAD_BYTES + SLICE_BYTES);
    });
    const got = parseSse(await follower.text());
    expect(got.map((e) => e.event)).toEqual(own.map((e) => e.event));
    expect(got.find((e) => e.event === 'answer')!.data.answer).toBe(own.find((e) => e.event === 'answer')!.data.answer);
    expect(got.find((e) => e.event === 'answer')!.data.answer).toHaveLength(600_000);
  });
});
