import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { RunObject } from '../../durable-objects/run-object';
import { RUN_SCHEMA_VERSION } from '../../durable-objects/run/migrations';
import { runStarted } from '../../src/engine/first-event';
import type { RunRequest } from '../../src/engine/types';
import { emptyUsage } from '../../src/engine/usage';
import { installScript } from '../../src/llm/scripted';

const stubFor = (runId: string) => env.RUNS.get(env.RUNS.idFromName(runId)) as DurableObjectStub<RunObject>;

const QUESTION = 'In which city was Robert Zemeckis born?';
const SEARCH = { thought: 'I should find his page first.', tool: 'wikisearch', input: 'Robert Zemeckis' };
const OBSERVATION = '1. Robert Zemeckis — American film director';

/**
 * An HQA agent's state as the code before `recipe`, `scope` and `withParametric` joined it stored it: one search done,
 * the next step a thought. `after` is the step it was stored after.
 */
const oldAgentState = (after: 'think' | 'act') => ({
  phase: after === 'think' ? 'act' : 'think',
  question: QUESTION,
  examples: [],
  exampleIds: [],
  selection: 'zero-shot',
  turns: [after === 'think' ? SEARCH : { ...SEARCH, observation: OBSERVATION, error: false }],
  iterations: 1,
  maxIterations: 10,
});

/** Writes a run two steps in (a thought with its action, then the observation), as version 3 of the store held it. */
const storeOldRun = (sql: SqlStorage, runId: string) => {
  const request: RunRequest = { question: QUESTION, variant: 'mintaka', mode: 'agent' };
  const now = Date.now();
  const events = [
    runStarted(runId, request),
    { type: 'thought', data: { text: SEARCH.thought } },
    { type: 'action', data: { tool: SEARCH.tool, input: SEARCH.input } },
    { type: 'observation', data: { tool: SEARCH.tool, output: OBSERVATION, ms: 3, error: false } },
  ];
  events.forEach((e, k) => sql.exec('INSERT INTO events (id, type, data, at) VALUES (?, ?, ?, ?)', k + 1, e.type, JSON.stringify(e.data), now));
  const usage = JSON.stringify(emptyUsage());
  sql.exec('INSERT INTO checkpoints (step, last_event, state, usage) VALUES (1, 3, ?, ?), (2, 4, ?, ?)', JSON.stringify(oldAgentState('think')), usage, JSON.stringify(oldAgentState('act')), usage);
  const meta = { runId, request, status: 'running', state: oldAgentState('act'), usage: emptyUsage(), steps: 2, startedAt: now, owner: 'open' };
  sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('meta', ?)", JSON.stringify(meta));
  sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('schema', '3')");
};

const storedStates = (runId: string) =>
  runInDurableObject(stubFor(runId), (_obj, state) => {
    const sql = state.storage.sql;
    const value = (key: string) => sql.exec<{ value: string }>('SELECT value FROM kv WHERE key = ?', key).one().value;
    return {
      schema: value('schema'),
      meta: JSON.parse(value('meta')).state,
      checkpoints: sql.exec<{ state: string }>('SELECT state FROM checkpoints ORDER BY step').toArray().map((r) => JSON.parse(r.state)),
    };
  });

describe('a run stored in an older shape', () => {
  it('is upgraded once when its object loads it, and the run resumes where it was', { timeout: 60_000 }, async () => {
    const runId = crypto.randomUUID();
    await runInDurableObject(stubFor(runId), (_obj, state) => storeOldRun(state.storage.sql, runId));
    // A new instance loads the run, as after a deploy of newer code.
    await abortAllDurableObjects().catch(() => {});
    const llm = installScript({ agent: [' His page says Chicago.\nFinal Answer: Chicago'], parametric: ['Chicago'], final: ['Chicago'] });

    const upgraded = await storedStates(runId);
    expect(upgraded.schema).toBe(String(RUN_SCHEMA_VERSION));
    // A hybrid agent of our recipe with the closed-book call, in the run's state and in every checkpoint a fork starts from.
    const settings = { recipe: 'ours', scope: 'hybrid', withParametric: true };
    expect(upgraded.meta).toEqual({ ...oldAgentState('act'), ...settings });
    expect(upgraded.checkpoints).toEqual([{ ...oldAgentState('think'), ...settings }, { ...oldAgentState('act'), ...settings }]);

    // The object re-armed its alarm for the unfinished run; the test pool does not deliver an aborted object's alarm.
    await runDurableObjectAlarm(stubFor(runId));
    let view: any = await stubFor(runId).view();
    for (let i = 0; i < 400 && view?.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      view = await stubFor(runId).view();
    }
    expect(view).toMatchObject({ status: 'succeeded', answer: 'Chicago', answers: { parametric: 'Chicago', agent: 'Chicago' } });
    // The stored steps stand, and the run goes on after them: the old search is not repeated, and its turn is in the prompt.
    const steps = view.steps as Array<{ id: number; type: string }>;
    expect(steps.slice(0, 3).map((s) => s.type)).toEqual(['thought', 'action', 'observation']);
    expect(steps.filter((s) => s.type === 'action')).toHaveLength(1);
    expect(steps.map((s) => s.id)).toEqual(steps.map((_, k) => k + 2));
    expect(llm.requests.map((r) => r.purpose).sort()).toEqual(['agent', 'final', 'parametric']);
    expect(JSON.stringify(llm.requests.find((r) => r.purpose === 'agent')!.messages)).toContain(OBSERVATION);
  });
});

describe('a run stored with its options as sent (before they were resolved with the run)', () => {
  it('runs with them, parsed when its object loads it; a key this code no longer takes is left out, not a failure', { timeout: 60_000 }, async () => {
    const runId = crypto.randomUUID();
    // As the code before resolved options stored it: the options as sent, among them a test-only key since removed.
    const request: RunRequest = { question: 'Is Chicago in Illinois?', variant: 'mintaka', mode: 'parametric', options: { booleanStyle: 'true-false', testEvidence: 'live' } };
    await runInDurableObject(stubFor(runId), (_obj, state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      const first = runStarted(runId, request);
      sql.exec('INSERT INTO events (id, type, data, at) VALUES (1, ?, ?, ?)', first.type, JSON.stringify(first.data), now);
      const meta = { runId, request, status: 'queued', usage: emptyUsage(), steps: 0, startedAt: now, owner: 'open' };
      sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('meta', ?)", JSON.stringify(meta));
      sql.exec("INSERT OR REPLACE INTO kv (key, value) VALUES ('schema', '3')");
    });
    await abortAllDurableObjects().catch(() => {});
    installScript({ parametric: ['yes'] });
    await runDurableObjectAlarm(stubFor(runId));
    let view: any = await stubFor(runId).view();
    for (let i = 0; i < 400 && !['succeeded', 'failed'].includes(view?.status); i++) {
      await new Promise((r) => setTimeout(r, 25));
      view = await stubFor(runId).view();
    }
    // booleanStyle, read from the options as sent, wrote the yes as True.
    expect(view).toMatchObject({ status: 'succeeded', answer: 'True' });
  });
});
