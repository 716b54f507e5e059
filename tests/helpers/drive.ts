import { loadConfig } from '../../src/config';
import { attributedAnswer, evidenceBook } from '../../src/engine/attribution/attribute';
import { answerAsAsked } from '../../src/engine/answer-policy';
import { createRunContext, type Services } from '../../src/engine/context';
import { parseOptions, type RunOptions } from '../../src/engine/options';
import type { EventInput, RunRequest, Strategy, Usage } from '../../src/engine/types';
import { createKnowledgeApi } from '../../src/evidence';
import type { KnowledgeApi } from '../../src/evidence/crag/types';
import { recordingEvidence, recordingKg, type EvidenceRecord } from '../../src/evidence/recording';
import type { Evidence } from '../../src/evidence/types';
import { emptyUsage } from '../../src/engine/usage';
import type { LLM } from '../../src/llm/types';
import { toolRegistry, type Tool } from '../../src/tools/types';

const unavailable = (what: string) => () => {
  throw new Error(`${what} is not available in this test`);
};

/**
 * Drives a strategy start → step → … → done without the Durable Object, for unit tests of strategies.
 * Each step's state goes through JSON, as it does in storage, so a strategy that keeps non-JSON state fails here.
 * Evidence is recorded as the engine records it, and the answer is attributed against that recording. The request's
 * options are parsed with the strategy's schema, as the run service parses them (a bad one throws).
 */
export const driveStrategy = async <S, O extends RunOptions>(
  strategy: Strategy<S, O>,
  opts: {
    request: Partial<RunRequest> & { question: string };
    llm: LLM;
    services?: Partial<Services>;
    tools?: Tool[];
    env?: Record<string, string>;
    maxSteps?: number;
  },
): Promise<{ events: EventInput[]; usage: Usage; state: S; steps: number; notes: string[]; records: EvidenceRecord[] }> => {
  const usage = emptyUsage();
  const notes: string[] = [];
  const request: RunRequest = { variant: 'mintaka', mode: strategy.mode, ...opts.request };
  const options = parseOptions(strategy.options, strategy.mode, request.variant, request.options);
  const records: EvidenceRecord[] = [];
  const recorded: string[] = [];
  const keep = (r: EvidenceRecord) => {
    recorded.push(r.key);
    if (!records.some((x) => x.key === r.key)) records.push(r);
  };
  let evidence: Evidence | undefined;
  let kg: KnowledgeApi | undefined;
  const book = () => evidenceBook(records, request.context, request.question);
  const config = loadConfig({ ...(opts.env ?? {}) });
  const ctx = createRunContext({
    runId: 'test-run',
    request,
    options,
    config,
    llm: opts.llm,
    services: {
      evidence: () => (evidence ??= recordingEvidence((opts.services?.evidence ?? unavailable('evidence'))(), keep)),
      // The KG API of CRAG_API_URL in `env` (through the live client, without a gate), unless the test brings one.
      kg: () => (kg ??= recordingKg(opts.services?.kg?.() ?? createKnowledgeApi(config, {}), keep)),
      embedder: opts.services?.embedder ?? unavailable('embedder'),
      vectors: opts.services?.vectors ?? unavailable('vectors'),
    },
    tools: toolRegistry(opts.tools ?? []),
    scope: { usage, note: (text) => notes.push(text) },
    recorded,
    book,
  });
  let state = JSON.parse(JSON.stringify(await strategy.start(ctx))) as S;
  const events: EventInput[] = [];
  for (let steps = 1; steps <= (opts.maxSteps ?? 50); steps++) {
    const out = await strategy.step(state, ctx);
    state = JSON.parse(JSON.stringify(out.state)) as S;
    events.push(...out.events.map((e): EventInput => (e.type === 'answer' ? { type: 'answer', data: answerAsAsked(attributedAnswer(e.data, book()), options) } : e)));
    if (out.done) return { events, usage, state, steps, notes, records };
  }
  throw new Error(`strategy did not finish in ${opts.maxSteps ?? 50} steps`);
};
