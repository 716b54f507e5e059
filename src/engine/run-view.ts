import type { CallInFlight } from './calls-in-flight';
import type { AnswerData, RunEvent, RunRequest, RunStatus, Timings, Usage } from './types';

export interface RunRecord {
  runId: string;
  request: RunRequest;
  /** A chat run's question made self-contained from its earlier turns (null: none, or not yet made). */
  standaloneQuestion?: string | null;
  status: RunStatus;
  usage: Usage;
  timings: Timings;
  events: RunEvent[];
  /** Set when the run's evidence was served from an uploaded archive. */
  replay?: { archiveId: string; misses: number } | null;
  parent?: { runId: string; fromStep: number } | null;
  forks?: Array<{ runId: string; fromStep: number }>;
  /** Steps a fork can start after, each with the id of the last event it stored. */
  checkpoints?: Array<{ step: number; lastEventId: number }>;
  /** The run's OpenTelemetry trace id when traces are exported, else null. */
  traceId?: string | null;
}

/** The run JSON of the public contract, derived from the stored events. */
export const runView = (r: RunRecord) => {
  const answerEvent = [...r.events].reverse().find((e) => e.type === 'answer');
  const answer = answerEvent?.data as AnswerData | undefined;
  const error = [...r.events].reverse().find((e) => e.type === 'error');
  return {
    runId: r.runId,
    question: r.request.question,
    standaloneQuestion: r.standaloneQuestion ?? null,
    conversation: r.request.conversation ?? null,
    variant: r.request.variant,
    mode: r.request.mode,
    status: r.status,
    answer: answer?.answer ?? null,
    answers: answer?.answers ?? {},
    sources: answer?.sources ?? [],
    confidence: answer?.confidence ?? null,
    agreementSources: answer?.agreementSources ?? [],
    citations: answer?.citations ?? [],
    entities: answer?.entities ?? [],
    error: error ? error.data : null,
    steps: r.events
      .filter((e) => e.type !== 'run' && e.type !== 'done')
      .map((e) => ({ id: e.id, type: e.type, at: e.at, ...e.data })),
    usage: r.usage,
    timings: r.timings,
    replay: r.replay ?? null,
    parent: r.parent ?? null,
    forks: r.forks ?? [],
    checkpoints: r.checkpoints ?? [],
    traceId: r.traceId ?? null,
    /** The model calls an unfinished run waits on now; its object fills it in (durable-objects/run-object.ts). */
    waitingOn: [] as CallInFlight[],
  };
};

export type RunView = ReturnType<typeof runView>;
