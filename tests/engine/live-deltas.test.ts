import { describe, expect, it } from 'vitest';
import { coalescer, liveLLM, stopGuard, type Delta } from '../../src/engine/live-deltas';
import { installModel, installScript } from '../../src/llm/scripted';
import { workersAIProvider } from '../../src/llm/workers-ai';
import { breaksOnce, get, post, readSse, type SseEvent } from './helpers';

/** One tick first, so the stream is followed before the answer's model call starts. */
const streamedRun = (question: string) =>
  post('/v1/answer', { question, mode: 'test-tool-loop', options: { calls: 1, delayMs: 50 } }, { accept: 'text/event-stream' });

const deltasOf = (events: SseEvent[]) => events.filter((e) => e.event === 'delta');

describe('streamed answers', () => {
  // The first test of a file pays for loading the Worker (20 s and more on a busy machine).
  it('reach the stream as delta events before the answer and done, and a replay has none', { timeout: 120_000 }, async () => {
    installScript({ final: [{ pieces: ['The answer ', 'is ', '42.'], gapMs: 60 }] });
    const res = await streamedRun('what is six times seven?');
    const runId = res.headers.get('x-run-id')!;
    const events = await readSse(res, { deltas: true });
    const deltas = deltasOf(events);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((d) => d.id === undefined && d.data.answer === true && d.data.purpose === 'final')).toBe(true);
    expect(deltas.map((d) => d.data.text).join('')).toBe('The answer is 42.');
    const names = events.map((e) => e.event);
    expect(names.lastIndexOf('delta')).toBeLessThan(names.indexOf('answer'));
    expect(names.at(-1)).toBe('done');
    expect(events.at(-1)!.data.timings.firstAnswerTokenMs).toEqual(expect.any(Number));

    const run = await (await get(`/v1/runs/${runId}`)).json<any>();
    expect(run.answer).toBe('The answer is 42.');
    expect(run.timings.firstAnswerTokenMs).toEqual(expect.any(Number));
    expect(run.steps.map((s: any) => s.type)).not.toContain('delta');
    const replay = await readSse(await get(`/v1/runs/${runId}/events`), { deltas: true });
    expect(deltasOf(replay)).toEqual([]);
    expect(replay.map((e) => e.event).at(-1)).toBe('done');
  });

  it('coalesce a model that sends one character at a time', async () => {
    const text = 'x'.repeat(300);
    installScript({ final: [{ pieces: [...text] }] });
    const deltas = deltasOf(await readSse(await streamedRun('one byte at a time'), { deltas: true }));
    expect(deltas.map((d) => d.data.text).join('')).toBe(text);
    expect(deltas.length).toBeLessThan(5);
  });

  it('are not asked for when nobody follows the run; the answer still has a time', async () => {
    const script = installScript({ final: ['not streamed'] });
    const run = await (await post('/v1/answer', { question: 'no one listens', mode: 'test-tool-loop', options: { calls: 0 } })).json<any>();
    expect(run.answer).toBe('not streamed');
    expect(script.scopes[0].onDelta).toBeUndefined();
    expect(run.timings.firstAnswerTokenMs).toEqual(expect.any(Number));
  });

  it('come from a Workers AI binding that streams', async () => {
    const encoder = new TextEncoder();
    const seen: any[] = [];
    const ai = {
      run: async (_model: string, inputs: any) => {
        seen.push(inputs);
        const events = [{ response: 'Paris ' }, { response: 'is the ' }, { response: 'capital.' }, { response: '', usage: { prompt_tokens: 9, completion_tokens: 4 } }];
        let i = 0;
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((r) => setTimeout(r, 40));
            if (i < events.length) controller.enqueue(encoder.encode(`data: ${JSON.stringify(events[i++])}\n\n`));
            else {
              controller.enqueue(encoder.encode('data: [DONE]\n\n'));
              controller.close();
            }
          },
        });
      },
    } as unknown as Ai;
    installModel(workersAIProvider(ai, { budget: { maxBytes: 64 * 1024, timeoutMs: 5_000 }, maxRetries: 0 }));
    // The answer's call is the run's first: the stream is followed from the start, before any step runs.
    const res = await post('/v1/answer', { question: 'capital of France?', mode: 'parametric' }, { accept: 'text/event-stream' });
    const events = await readSse(res, { deltas: true });
    expect(seen[0].stream).toBe(true);
    const deltas = deltasOf(events);
    expect(deltas.map((d) => d.data.text).join('')).toBe('Paris is the capital.');
    expect(events.map((e) => e.event).lastIndexOf('delta')).toBeLessThan(events.map((e) => e.event).indexOf('done'));
    expect(events.find((e) => e.event === 'answer')!.data.answer).toBe('Paris is the capital.');
  });
});

describe('delta shaping', () => {
  it('marks the first delta after a retried attempt, so a client drops what the broken attempt showed', async () => {
    // The first attempt's connection breaks after its first piece.
    const ai = breaksOnce('Lyon and ', 'Paris');
    const sent: Delta[] = [];
    const llm = liveLLM(workersAIProvider(ai, { budget: { maxBytes: 64 * 1024, timeoutMs: 5_000 }, maxRetries: 1 }), {
      listening: () => true,
      nextCall: () => 7,
      send: (d) => sent.push(d),
    });
    const result = await llm.chat({ purpose: 'final', messages: [{ role: 'user', content: 'capital?' }] }, { answer: true });
    expect(result.text).toBe('Paris');
    const retryAt = sent.findIndex((d) => d.retry);
    expect(retryAt).toBeGreaterThan(0);
    expect(sent.slice(0, retryAt).map((d) => d.text).join('')).toBe('Lyon and ');
    expect(sent.slice(retryAt).map((d) => d.text).join('')).toBe('Paris');
    expect(sent.every((d) => d.call === 7 && d.answer === true)).toBe(true);
  });

  it('never shows a stop sequence, even split across pieces, and completes from the finished reply', () => {
    const guard = stopGuard(['Observation:']);
    const shown = ['Thought: look it up\nObs', 'ervation: made up', ' more'].map((d) => guard.take(d)).join('');
    expect(shown).toBe('Thought: look it up\n');
    const open = stopGuard(['Observation:']);
    const early = open.take('Final Answer: 4');
    expect(early.length).toBeLessThan('Final Answer: 4'.length);
    expect(early + open.rest('Final Answer: 42')).toBe('Final Answer: 42');
  });

  it('sends the first piece at once, then what waits once it passes the size bound, and the rest on flush', () => {
    const sent: string[] = [];
    const out = coalescer((t) => sent.push(t), 10_000, 8);
    for (const c of 'abcdefghijkl') out.push(c);
    expect(sent).toEqual(['a', 'bcdefghi']);
    out.flush();
    expect(sent).toEqual(['a', 'bcdefghi', 'jkl']);
  });
});
