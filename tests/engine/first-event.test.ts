import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { firstEventThenRun, runStartedFrame } from '../../src/runs/first-event-stream';
import type { RunRequest } from '../../src/engine/types';
import { installScript } from '../../src/llm/scripted';
import { get, parseSse, post, readSse } from './helpers';

const decoder = new TextDecoder();
const request: RunRequest = { question: 'Who wrote Dune?', variant: 'mintaka', mode: 'parametric' };
const frameText = (runId: string, req: RunRequest = request, secrets: string[] = []) =>
  decoder.decode(runStartedFrame({ ...loadConfig(env as unknown as Record<string, unknown>), secrets }, runId, req));

/** The first SSE frame of a body (up to its blank line). */
const firstFrame = (text: string) => text.slice(0, text.indexOf('\n\n') + 2);

describe("a streamed run's first event", () => {
  it('reaches the client while the run is still being set up', async () => {
    let setUp!: (value: { events?: Response }) => void;
    const started = new Promise<{ events?: Response }>((resolve) => (setUp = resolve));
    const res = firstEventThenRun(runStartedFrame(loadConfig(env as unknown as Record<string, unknown>), 'r-1', request), () => started);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The set-up has not answered, and the run event is already readable.
    const { value } = await reader.read();
    expect(parseSse(value!)).toEqual([{ id: 1, event: 'run', data: { runId: 'r-1', variant: 'mintaka', mode: 'parametric', question: 'Who wrote Dune?' } }]);
    setUp({ events: new Response('id: 2\nevent: done\ndata: {"status":"succeeded"}\n\n') });
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
    expect(parseSse(rest)).toEqual([{ id: 2, event: 'done', data: { status: 'succeeded' } }]);
  });

  it('is followed by an error and a failed done when the run cannot be set up', async () => {
    const res = firstEventThenRun(runStartedFrame(loadConfig(env as unknown as Record<string, unknown>), 'r-2', request), () => Promise.reject(new Error('the object is unavailable')));
    const events = await readSse(res);
    expect(events.map((e) => [e.id, e.event])).toEqual([
      [1, 'run'],
      [2, 'error'],
      [3, 'done'],
    ]);
    expect(events[1]!.data).toEqual({ code: 'start_failed', message: 'the run could not be started: the object is unavailable' });
    expect(events[2]!.data.status).toBe('failed');
  });

  it('is byte for byte the event the run stores, so a replay from the start shows the same first frame', async () => {
    installScript({ parametric: ['Frank Herbert'] });
    const res = await post('/v1/answer', { question: 'Who wrote "Dune" — the 1965 novel?', mode: 'parametric' }, { accept: 'text/event-stream' });
    const runId = res.headers.get('x-run-id')!;
    const live = await res.text();
    const replay = await (await get(`/v1/runs/${runId}/events`)).text();
    expect(firstFrame(live)).toBe(firstFrame(replay));
    expect(firstFrame(live)).toBe(frameText(runId, { question: 'Who wrote "Dune" — the 1965 novel?', variant: 'mintaka', mode: 'parametric' }));
    // Nothing is sent twice: the run's own stream goes on after the event the API sent.
    expect(parseSse(live).filter((e) => e.event === 'run')).toHaveLength(1);
    expect(parseSse(live).at(-1)).toMatchObject({ event: 'done', data: { status: 'succeeded' } });
  });

  it('is scrubbed of secrets like the stored one', () => {
    const text = frameText('r-3', { ...request, question: 'is sk-test-1234 my key?' }, ['sk-test-1234']);
    expect(text).toContain('is [redacted] my key?');
    expect(text).not.toContain('sk-test-1234');
  });
});
