import { beforeAll, describe, expect, it } from 'vitest';
import { installScript } from '../../src/llm/scripted';
import { get, post } from './helpers';

beforeAll(() => get('/healthz'), 120_000);

describe('a run waiting on a model call', () => {
  it('shows running and the call it waits on while the call lasts, not queued with nothing, and nothing once it ends', async () => {
    let release!: (text: string) => void;
    const reply = new Promise<string>((resolve) => (release = resolve));
    installScript({ parametric: [() => reply] });
    const res = await post('/v1/answer', { question: 'What is the capital of France?', mode: 'parametric' }, { accept: 'text/event-stream' });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!/"runId":"([^"]+)"/.test(text)) text += (await reader.read()).value ?? '';
    const runId = /"runId":"([^"]+)"/.exec(text)![1];

    let run: any;
    for (let i = 0; i < 200; i++) {
      run = await (await get(`/v1/runs/${runId}`)).json();
      if (run.waitingOn?.length) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(run.status).toBe('running');
    expect(run.steps).toEqual([]);
    expect(run.waitingOn).toEqual([{ kind: 'model', purpose: 'parametric', model: expect.any(String), since: expect.any(Number) }]);
    const listed = (await (await get('/v1/runs?limit=5')).json<any>()).runs.find((r: any) => r.runId === runId);
    expect(listed.status).toBe('running');

    release('Paris');
    while (!(await reader.read()).done);
    const done = await (await get(`/v1/runs/${runId}`)).json<any>();
    expect(done.status).toBe('succeeded');
    expect(done.waitingOn).toEqual([]);
  });
});
