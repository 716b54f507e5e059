import { abortAllDurableObjects } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/llm/types';
import { installScript } from '../../src/llm/scripted';
import { post, sleep, waitUntilEnded } from '../faults/helpers';

const pageOf = (request: ChatRequest) => /Berlin|Madrid/.exec(JSON.stringify(request.messages))![0];

describe('parallel calls of one native turn and a crash', () => {
  it('a run evicted while one of two calls is still running runs only that one again', { timeout: 60_000 }, async () => {
    const finished: string[] = [];
    const asked: string[] = [];
    // Berlin's read ends at once; Madrid's is held, so the object is evicted between the two.
    const read = async (request: ChatRequest) => {
      const page = pageOf(request);
      asked.push(page);
      await sleep(page === 'Madrid' ? 1_500 : 20);
      finished.push(page);
      return `${page} has about ${page === 'Berlin' ? '3.7' : '3.3'} million inhabitants.`;
    };
    installScript({
      agent: [
        {
          toolCalls: ['Berlin', 'Madrid'].map((c, i) => ({ name: 'read', id: `rd${i}abcdef`, arguments: { title: c, question: `What is the population of ${c}?` } })),
          text: 'Both populations, at once.',
        },
        'Thought: Berlin is larger.\nFinal Answer: Berlin',
      ],
      read: [read, read, read, read],
      parametric: ['Berlin'],
      final: ['Berlin'],
    });
    const res = await post('/v1/answer', { question: 'Which city has more inhabitants, Berlin or Madrid?', options: { toolProtocol: 'native' } }, { accept: 'text/event-stream' });
    const runId = res.headers.get('x-run-id')!;
    void res.body?.cancel();
    for (let i = 0; i < 2_000 && !finished.includes('Berlin'); i++) await sleep(5);
    // Berlin's result is kept as the call ends; give the object that write before it goes.
    await sleep(50);
    expect(finished).toEqual(['Berlin']);
    await abortAllDurableObjects().catch(() => {});
    const run = await waitUntilEnded(runId);
    expect(run.status).toBe('succeeded');
    // The repeated step asked for Madrid again and never for Berlin, whose call had finished.
    expect(asked.filter((p) => p === 'Berlin')).toHaveLength(1);
    expect(asked.filter((p) => p === 'Madrid').length).toBeGreaterThanOrEqual(2);
    const observations = run.steps.filter((s: any) => s.type === 'observation');
    expect(observations.map((o: any) => o.callId)).toEqual(['rd0abcdef', 'rd1abcdef']);
    expect(observations[0].output).toMatch(/^Berlin has about 3.7 million/);
    expect(run.answer).toBe('Berlin');
  });
});
