import type { Delta } from '../engine/live-deltas';
import type { AnswerData, Citation, Confidence, EventType, RunStatus, Usage } from '../engine/types';
import { pulledFrames, sseComment, sseFrame } from '../net/sse';
import { runEventsReader, type RunStreamItem } from '../runs/events-reader';
import { reasoningLine } from '../runs/step-lines';
import { sourcesText } from './chat-sources';
import { liveDraft } from './live-draft';

/** OpenAI's usage fields from a run's usage. */
export const openAIUsage = (u: Usage | undefined) => {
  const prompt = u?.promptTokens ?? 0;
  const completion = u?.completionTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
};

/** What the answer rests on, as an extension field beside OpenAI's own (docs/CONFIDENCE.md). */
export const runField = (runId: string, a: { confidence: Confidence | null; agreementSources: string[]; citations: Citation[] }) => ({
  runId,
  confidence: a.confidence,
  agreementSources: a.agreementSources,
  citations: a.citations,
});

export const completionId = (runId: string) => `chatcmpl-${runId}`;

/** OpenAI's finish_reason for a run's end: a run cut short by one of its limits is a completion cut short. */
export const finishReason = (status: RunStatus) => (status === 'limited' ? 'length' : 'stop');
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A chat frame: OpenAI's streams carry `data:` lines only. */
const data = (value: unknown) => sseFrame({ data: JSON.stringify(value) });

/**
 * The chat.completion.chunk frames of one run, item by item of its event stream. The model's text as it is written
 * (the run's live `delta` events) goes out as `reasoning_content`, never as `content`: a client concatenates
 * `content`, and a call's text may be retried or differ from the answer composed after it. `content` is only ever the
 * `answer` event's text, so it ends up exactly the run's answer.
 */
const chunkWriter = (runId: string, model: string, citeSources: boolean) => {
  const id = completionId(runId);
  const created = nowSeconds();
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    data({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: null }], ...extra });
  const reasoning = (text: string) => (text ? [chunk({ reasoning_content: text })] : []);
  const draft = liveDraft();
  let answered = false;
  /** The run's error event ({code, message}), told in the last chunk as the JSON form tells it in `run.error`. */
  let failure: { code: string; message: string } | undefined;

  const answer = (a: AnswerData): Uint8Array[] => {
    if (answered) return [];
    answered = true;
    // The answer's chunk carries what it rests on as an extension field; with cite_sources the text says it too.
    return [chunk({ content: a.answer }, { run: runField(runId, a) }), ...(citeSources ? [chunk({ content: sourcesText(a) })] : [])];
  };

  const done = (status: RunStatus, usage: Usage): Uint8Array[] => [
    // Ended without an answer (model down, bad evidence, cancelled): an OpenAI-style error frame, which OpenAI clients
    // raise as an APIError; the JSON form answers 502 run_failed. A run cut short by a limit is no error in either
    // form: a completion with finish_reason "length". The run itself stays readable at /v1/runs/{id}.
    ...(answered || status === 'limited' ? [] : [data({ error: { code: 'run_failed', type: 'run_failed', message: `the run ${runId} ended with status "${status}" and no answer${failure ? `: ${failure.message}` : ''}` } })]),
    data({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta: {}, finish_reason: finishReason(status) }],
      usage: openAIUsage(usage),
      // How a run that did not simply succeed ended, as the JSON form's `run` says it.
      ...(status === 'succeeded' ? {} : { run: { runId, status, ...(failure ? { error: failure } : {}) } }),
    }),
    sseFrame({ data: '[DONE]' }),
  ];

  const event = (type: string, json: string): Uint8Array[] => {
    // Text written after the answer went out would only trail it; the answer is what the client reads last.
    if (type === 'delta') return answered ? [] : reasoning(draft.delta(JSON.parse(json) as Delta));
    const value = JSON.parse(json) as Record<string, unknown>;
    if (type === 'error' && typeof value.code === 'string') failure = { code: value.code, message: String(value.message ?? '') };
    if (type === 'answer') return answer(value as unknown as AnswerData);
    if (type === 'done') return done(value.status as RunStatus, value.usage as Usage);
    const line = reasoningLine(type as EventType, value);
    return line ? reasoning(draft.step(type, line, value)) : [];
  };

  return {
    first: () => chunk({ role: 'assistant', content: '' }),
    of(item: RunStreamItem): Uint8Array[] {
      switch (item.kind) {
        case 'event':
          return event(item.event, item.data);
        case 'comment':
          return [sseComment('keep-alive')];
        case 'reopened':
          return reasoning(draft.reopened());
        case 'lost':
          return [data({ error: { code: 'stream_lost', type: 'stream_lost', message: `lost the event stream of run ${runId}; read it at /v1/runs/${runId}` } })];
      }
    },
  };
};

/**
 * A run's event stream as chat.completion.chunk frames. If the run's object is evicted mid-stream, the reader opens
 * its stream again after the last event seen (src/runs/events-reader.ts), so the client sees one uninterrupted
 * completion. A client that goes away stops the reading; the run goes on and stays readable.
 */
export const chunkStream = (open: (after: number) => Promise<Response>, first: Response, runId: string, model: string, citeSources: boolean): ReadableStream<Uint8Array> => {
  const chunks = chunkWriter(runId, model, citeSources);
  const reader = runEventsReader({ first, open });
  const next = async () => {
    const items = await reader.next();
    return items && items.flatMap((item) => chunks.of(item));
  };
  return pulledFrames(next, () => reader.close(), [chunks.first()]);
};
