import type { CallToolResult, ServerNotification, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Delta } from '../engine/live-deltas';
import type { EventType } from '../engine/types';
import { createRun } from '../runs/create';
import { describeIssues, HttpError } from '../runs/errors';
import { runEventsReader, type RunStreamItem } from '../runs/events-reader';
import { answerRequestSchema } from '../runs/request-schema';
import { reasoningLine } from '../runs/step-lines';
import { runEvents, runStub, waitForRun } from '../runs/stub';
import { draftProgress } from './draft-progress';
import { textResult } from './evidence-tools';
import { inputJsonSchema } from './json-schema';

/**
 * The `answer` MCP tool: one run, as POST /v1/answer would start it (same validation, same owner), followed through
 * its event stream. Each stored step, and the model's text as it is written, becomes a progress notification when the
 * client sent a progress token; the result is the answer as text plus {runId, status, answer, confidence, agreementSources, citations} as structured content.
 * The caller supplies no `context`: MCP requests stay within the 64 KB body limit.
 */

const answerInput = answerRequestSchema.omit({ context: true });

export const describeAnswerTool = (): McpTool => ({
  name: 'answer',
  description:
    'Answer a factual question over Wikipedia and Wikidata with the HQA agent (or another mode). Sends a progress notification per reasoning step, ' +
    'and the model\'s text as it is written in gathered progress messages; ' +
    'returns the answer, its confidence (agreement of the sources that answered from evidence), the citations checked against the run\'s evidence, and the runId ' +
    '(GET /v1/runs/{runId} has the whole trace).',
  inputSchema: inputJsonSchema(answerInput),
  annotations: { readOnlyHint: true, openWorldHint: true },
});

export interface AnswerCall {
  env: Env;
  owner?: string;
  args: unknown;
  progressToken?: string | number;
  notify: (notification: ServerNotification) => Promise<void>;
  signal: AbortSignal;
  /** Keeps work going after the client has gone (the Worker's `waitUntil`). */
  waitUntil?: (p: Promise<unknown>) => void;
  /** Records the call's run while it runs, so a later `notifications/cancelled` can find it (call-registry.ts). */
  track?: (runId: string) => Promise<{ ended(): Promise<void> }>;
}

const progressMessage = (type: string, data: Record<string, unknown>): string | undefined => {
  if (type === 'run') return `run ${String(data.runId)} started (${String(data.mode)})`;
  if (type === 'answer') return `answer: ${String(data.answer ?? '')}`;
  return reasoningLine(type as EventType, data)?.trim();
};

/**
 * The progress of one call: each stored step as a message numbered by its event id, and the model's text as it is
 * written (live deltas, which have no id) in gathered messages numbered between the last step's id and the next, so
 * `progress` only grows. Without a progress token nothing is gathered.
 */
const progressOf = (withDeltas: boolean) => {
  let lastId = 0;
  let sinceStep = 0;
  const draft = draftProgress();
  const pending: Array<{ progress: number; message: string }> = [];
  const pushDraft = (messages: string[]) => {
    for (const message of messages) pending.push({ progress: lastId + 1 - 1 / (2 + sinceStep++), message });
  };
  const add = (item: RunStreamItem) => {
    if (item.kind !== 'event') return;
    if (item.event === 'done') pushDraft(draft.flush());
    let data: Record<string, unknown> = {};
    try {
      data = JSON.parse(item.data) as Record<string, unknown>;
    } catch {
      return;
    }
    if (item.event === 'delta') {
      if (withDeltas) pushDraft(draft.delta(data as unknown as Delta));
      return;
    }
    const message = progressMessage(item.event, data);
    if (!message || item.id === undefined) return;
    pushDraft(draft.flush());
    lastId = item.id;
    sinceStep = 0;
    pending.push({ progress: lastId, message: message.slice(0, 500) });
  };
  return { add, take: () => pending.splice(0) };
};

/**
 * Reads the run's events until `done` (the one resilient reader: a broken stream is opened again after the last
 * event seen), sending each progress message as a notification when the client sent a progress token.
 */
const follow = async (call: AnswerCall, runId: string, first: Response | undefined) => {
  const reader = runEventsReader({ first, open: (after) => runEvents(runStub(call.env, runId), after) });
  const stop = () => void reader.close();
  call.signal.addEventListener('abort', stop, { once: true });
  const progress = progressOf(call.progressToken !== undefined);
  try {
    for (let items = await reader.next(); items && !call.signal.aborted; items = await reader.next()) {
      for (const item of items) progress.add(item);
      for (const p of progress.take()) {
        if (call.progressToken === undefined) continue;
        await call.notify({ method: 'notifications/progress', params: { progressToken: call.progressToken, progress: p.progress, message: p.message } });
      }
    }
  } finally {
    call.signal.removeEventListener('abort', stop);
    await reader.close();
  }
};

export const callAnswerTool = async (call: AnswerCall): Promise<CallToolResult> => {
  const parsed = answerInput.safeParse(call.args ?? {});
  if (!parsed.success) return textResult(`invalid arguments for answer: ${describeIssues(parsed.error.issues)}`, true);
  let started: Awaited<ReturnType<typeof createRun>>;
  try {
    started = await createRun(call.env, parsed.data, call.owner, undefined, { follow: true, ...(call.waitUntil ? { waitUntil: call.waitUntil } : {}) });
  } catch (err) {
    if (err instanceof HttpError) return textResult(err.message, true);
    throw err;
  }
  const { runId, stub, events } = started;
  // The client cancelled the request or went away: the run ends too, as DELETE /v1/runs/{id} would end it. A client
  // that left has ended its request, and only work handed to waitUntil goes on after that: the call is kept open
  // there until it ends or its cancel is through.
  let cancelling: Promise<unknown> | undefined;
  const onAbort = () => void (cancelling ??= stub.cancel(call.owner).catch(() => {}));
  let release = () => {};
  call.waitUntil?.(new Promise<void>((r) => (release = r)).then(() => cancelling));
  call.signal.addEventListener('abort', onAbort, { once: true });
  if (call.signal.aborted) onAbort();
  const tracked = await call.track?.(runId).catch(() => undefined);
  try {
    // A stream that cannot be read only stops the progress; the result still comes from the run itself.
    await follow(call, runId, events).catch(() => {});
    const view = await waitForRun(stub);
    if (!view) return textResult(`run ${runId} was lost`, true);
    const structured = {
      runId,
      status: view.status,
      answer: view.answer,
      confidence: view.confidence,
      agreementSources: view.agreementSources,
      citations: view.citations,
    };
    const err = view.error as { code?: string; message?: string } | null;
    const text = view.answer !== null ? view.answer : `the run ended with status "${view.status}" and no answer${err?.message ? `: ${err.message}` : ''}`;
    return { content: [{ type: 'text', text }], structuredContent: structured, ...(view.answer === null ? { isError: true } : {}) };
  } finally {
    call.signal.removeEventListener('abort', onAbort);
    await tracked?.ended().catch(() => {});
    release();
  }
};
