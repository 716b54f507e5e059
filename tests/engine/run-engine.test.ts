import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { RunObject } from '../../durable-objects/run-object';
import { installScript } from '../../src/llm/scripted';
import { allowTick, killWaiters, tickExecutions, waitingAt } from '../../src/strategies/testing/tool-loop';
import { get, parseSse, post, readSse } from './helpers';

const stubFor = (runId: string) => env.RUNS.get(env.RUNS.idFromName(runId)) as DurableObjectStub<RunObject>;

const waitUntilEnded = async (runId: string) => {
  for (let i = 0; i < 400; i++) {
    const run = await (await get(`/v1/runs/${runId}`)).json<any>();
    if (['succeeded', 'failed', 'limited'].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('run did not end');
};

describe('a multi-step run', () => {
  it('streams thought/action/observation per tool call in order, then the answer', async () => {
    installScript({ final: ['all ticks done'] });
    const res = await post('/v1/answer', { question: 'tick three times', mode: 'test-tool-loop', options: { calls: 3, runKey: 'order' } }, { accept: 'text/event-stream' });
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual([
      'run',
      'thought', 'action', 'observation',
      'thought', 'action', 'observation',
      'thought', 'action', 'observation',
      'answer', 'done',
    ]);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.event === 'observation').map((e) => e.data.output)).toEqual(['tick 1 done', 'tick 2 done', 'tick 3 done']);
    expect(events.at(-1)!.data.usage).toMatchObject({ toolCalls: 3, llmCalls: 1, byTool: { tick: 3 } });
    expect(tickExecutions.get('order')).toEqual([1, 2, 3]);
  });

  it('resumes after the object is evicted mid-run without repeating a finished tool call', async () => {
    installScript({ final: ['finished after eviction'] });
    const created = await post('/v1/answer', { question: 'tick six times', mode: 'test-tool-loop', options: { calls: 6, runKey: 'evict', delayMs: 30 } }, { accept: 'text/event-stream' });
    const runId = created.headers.get('x-run-id')!;
    created.body?.cancel(); // the client leaves; the run must go on
    // Wait for some finished tool calls, then kill every object (as an eviction or crash would).
    for (let i = 0; i < 200 && (tickExecutions.get('evict')?.length ?? 0) < 2; i++) await new Promise((r) => setTimeout(r, 10));
    await abortAllDurableObjects();
    const run = await waitUntilEnded(runId);
    expect(run.status).toBe('succeeded');
    expect(run.answer).toBe('finished after eviction');
    const executed = tickExecutions.get('evict')!;
    // Every tick ran, each at most once more than... no: a finished call is never repeated. An interrupted,
    // unfinished call may run again, so the only duplicates allowed are of a call that had no stored observation.
    const observed = run.steps.filter((s: any) => s.type === 'observation').map((s: any) => s.output);
    expect(observed).toEqual([1, 2, 3, 4, 5, 6].map((n) => `tick ${n} done`));
    const repeats = executed.filter((n, i) => executed.indexOf(n) !== i);
    expect(repeats.length).toBeLessThanOrEqual(1);
    expect(new Set(executed)).toEqual(new Set([1, 2, 3, 4, 5, 6]));
  });

  it('after each crash the run continues from storage: interrupted steps re-run, stored ones never do', { timeout: 60_000 }, async () => {
    installScript({ final: ['done'] });
    const runId = crypto.randomUUID();
    const key = 'gated';
    await stubFor(runId).start(runId, { question: 'q', variant: 'mintaka', mode: 'test-tool-loop', options: { calls: 3, runKey: key, gated: true } });
    const until = async (what: string, cond: () => boolean) => {
      for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
      expect(cond(), what).toBe(true);
    };
    const deliveries: Array<Promise<unknown>> = [];
    for (let n = 1; n <= 3; n++) {
      // The step for tick n is in flight (blocked before its tool runs): crash it.
      await until(`tick ${n} in flight`, () => waitingAt(key) === n);
      await abortAllDurableObjects().catch(() => {});
      killWaiters(key);
      // The alarm restarts the object, which repeats the unfinished step and blocks again; let it through.
      // The restarted object re-arms its alarm (see its constructor); the local test pool does not deliver
      // alarms of aborted objects by itself, so deliver it here (not awaited: the step blocks at the gate).
      await stubFor(runId).view();
      deliveries.push(runDurableObjectAlarm(stubFor(runId)).catch(() => false));
      await until(`tick ${n} retried after the crash`, () => waitingAt(key) === n);
      allowTick(key, n);
      // The same alarm invocation goes on to the next step, which blocks at its gate until the next crash ends it.
      await until(`tick ${n} executed`, () => (tickExecutions.get(key)?.length ?? 0) >= n);
    }
    // The last delivery runs the run to its end.
    await Promise.all(deliveries);
    let view: any = await stubFor(runId).view();
    for (let i = 0; i < 200 && view?.status !== 'succeeded'; i++) {
      await new Promise((r) => setTimeout(r, 5));
      view = await stubFor(runId).view();
    }
    expect(view?.error ?? null).toBeNull();
    expect(view?.status).toBe('succeeded');
    expect(tickExecutions.get(key)).toEqual([1, 2, 3]);
    expect(view!.steps.filter((s: any) => s.type === 'observation').map((s: any) => s.output)).toEqual(['tick 1 done', 'tick 2 done', 'tick 3 done']);
    const stored = await runInDurableObject(stubFor(runId), (_obj, state) => state.storage.sql.exec('SELECT COUNT(*) AS n FROM events').one().n);
    expect(stored).toBe(view!.steps.length + 2); // + run and done
  });
});

describe('the event stream', () => {
  it('sends keep-alive comments while a step takes long, and the events still parse', async () => {
    installScript({ final: ['slow but done'] });
    const res = await post('/v1/answer', { question: 'slow', mode: 'test-tool-loop', options: { calls: 1, runKey: 'heartbeat', delayMs: 1_200 } }, { accept: 'text/event-stream' });
    const text = await res.text();
    expect(text).toMatch(/^: keep-alive$/m);
    const events = parseSse(text).map((e) => e.event);
    expect(events).toEqual(['run', 'thought', 'action', 'observation', 'answer', 'done']);
  });
});

describe('limits end the run with an error event and the partial answer', () => {
  const start = async (options: Record<string, unknown>, script: Record<string, any[]>) => {
    installScript(script);
    const res = await post('/v1/answer', { question: 'limited', mode: 'test-tool-loop', options });
    return res.json<any>();
  };

  it('max steps', async () => {
    const run = await start({ calls: 5, runKey: 'steps', limits: { maxSteps: 2 } }, { final: ['never'] });
    expect(run.status).toBe('limited');
    expect(run.error).toMatchObject({ code: 'limit_steps' });
    expect(run.answer).toBe('partial after 2 ticks');
    expect(tickExecutions.get('steps')).toEqual([1, 2]);
  });

  it('max LLM calls', async () => {
    const think = { agent: ['t1', 't2', 't3'], final: ['never'] };
    const run = await start({ calls: 3, think: true, runKey: 'llm', limits: { maxLLMCalls: 2 } }, think);
    expect(run.status).toBe('limited');
    expect(run.error).toMatchObject({ code: 'limit_llmCalls' });
    expect(run.usage.llmCalls).toBe(2);
    expect(tickExecutions.get('llm')).toEqual([1, 2]);
    expect(run.answer).toBe('partial after 2 ticks');
  });

  it('max tokens', async () => {
    // The budget is checked before each call, so the first call runs and the second is refused.
    const run = await start({ calls: 3, think: true, runKey: 'tok', limits: { maxTokens: 3 } }, { agent: ['a fairly long thought'], final: ['never'] });
    expect(run.status).toBe('limited');
    expect(run.error).toMatchObject({ code: 'limit_tokens' });
    expect(run.usage.llmCalls).toBe(1);
    expect(tickExecutions.get('tok')).toEqual([1]);
  });

  it('max wall time', async () => {
    const run = await start({ calls: 50, runKey: 'wall', delayMs: 40, limits: { maxWallMs: 300 } }, { final: ['never'] });
    expect(run.status).toBe('limited');
    expect(run.error).toMatchObject({ code: 'limit_wallTime' });
    expect(run.answer).toMatch(/^partial after \d+ ticks$/);
    expect(tickExecutions.get('wall')!.length).toBeLessThan(50);
  });
});
