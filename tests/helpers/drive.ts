import { loadConfig } from '../../src/config';
import { createRunContext, type Services } from '../../src/engine/context';
import type { EventInput, RunRequest, Strategy, Usage } from '../../src/engine/types';
import { emptyUsage } from '../../src/engine/usage';
import type { LLM } from '../../src/llm/types';
import { toolRegistry, type Tool } from '../../src/tools/types';

const unavailable = (what: string) => () => {
  throw new Error(`${what} is not available in this test`);
};

/**
 * Drives a strategy start → step → … → done without the Durable Object, for unit tests of strategies.
 * Each step's state goes through JSON, as it does in storage, so a strategy that keeps non-JSON state fails here.
 */
export const driveStrategy = async <S>(
  strategy: Strategy<S>,
  opts: {
    request: Partial<RunRequest> & { question: string };
    llm: LLM;
    services?: Partial<Services>;
    tools?: Tool[];
    env?: Record<string, string>;
    maxSteps?: number;
  },
): Promise<{ events: EventInput[]; usage: Usage; state: S; steps: number; notes: string[] }> => {
  const usage = emptyUsage();
  const notes: string[] = [];
  const request: RunRequest = { variant: 'mintaka', mode: strategy.mode, ...opts.request };
  const ctx = createRunContext({
    runId: 'test-run',
    request,
    config: loadConfig({ ...(opts.env ?? {}) }),
    llm: opts.llm,
    services: {
      evidence: opts.services?.evidence ?? unavailable('evidence'),
      embedder: opts.services?.embedder ?? unavailable('embedder'),
      vectors: opts.services?.vectors ?? unavailable('vectors'),
    },
    tools: toolRegistry(opts.tools ?? []),
    usage,
    note: (text) => notes.push(text),
  });
  let state = JSON.parse(JSON.stringify(await strategy.start(ctx))) as S;
  const events: EventInput[] = [];
  for (let steps = 1; steps <= (opts.maxSteps ?? 50); steps++) {
    const out = await strategy.step(state, ctx);
    state = JSON.parse(JSON.stringify(out.state)) as S;
    events.push(...out.events);
    if (out.done) return { events, usage, state, steps, notes };
  }
  throw new Error(`strategy did not finish in ${opts.maxSteps ?? 50} steps`);
};
