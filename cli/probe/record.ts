import type { Attempt, TaskName } from './battery';

/** What a probe concludes of a model: the rates it measured, and what LLM_TOOL_PROTOCOL=auto will do with it. */
export interface ProbeRecord {
  model: string;
  /** An OpenAI-compatible server's origin, or `workers-ai`: auto matches a record by model and server. */
  server: string;
  probedAt: string;
  repeats: number;
  summary: {
    native: {
      /** Share of native tool-call attempts (single, parallel, quotes, streamed) that made exactly the calls asked, each valid. */
      callValidity: number;
      /** Share of the parallel task's attempts that made both calls in one reply. */
      parallelHonoured: number;
      /** Share of the quotes-and-Unicode task's attempts whose arguments carried the text unchanged. */
      quotesValidity: number;
      streamedValidity: number;
      /** Share of replies with `response_format` that were the schema's JSON. */
      jsonSchemaValidity: number;
      medianMs: number | null;
    };
    /** The same tasks in the text protocol (one action per turn: the parallel task's first call is what counts). */
    text: { validity: number; jsonValidity: number; medianMs: number | null };
  };
  /** What auto speaks with this model: native functions, several calls in one turn, a reply schema for structured steps. */
  recommends: { tools: boolean; parallel: boolean; responseFormat: boolean };
  attempts: Attempt[];
}

const rate = (attempts: Attempt[], keep: (a: Attempt) => boolean, ok: (a: Attempt) => boolean = (a) => a.valid) => {
  const chosen = attempts.filter(keep);
  return chosen.length ? Math.round((chosen.filter(ok).length / chosen.length) * 100) / 100 : 0;
};

const median = (values: number[]): number | null => {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const CALL_TASKS: TaskName[] = ['single', 'parallel', 'quotes', 'streamed'];

/** Native is recommended where it is at least as good as text and good in itself (4 of 5 right). */
const GOOD = 0.8;

export const probeRecord = (model: string, server: string, repeats: number, attempts: Attempt[], now = new Date()): ProbeRecord => {
  const native = (task?: TaskName) => (a: Attempt) => a.protocol === 'native' && (task ? a.task === task : CALL_TASKS.includes(a.task));
  const text = (a: Attempt) => a.protocol === 'text' && CALL_TASKS.includes(a.task);
  const summary: ProbeRecord['summary'] = {
    native: {
      callValidity: rate(attempts, native()),
      parallelHonoured: rate(attempts, native('parallel'), (a) => a.calls >= 2),
      quotesValidity: rate(attempts, native('quotes')),
      streamedValidity: rate(attempts, native('streamed')),
      jsonSchemaValidity: rate(attempts, native('schema')),
      medianMs: median(attempts.filter((a) => a.protocol === 'native').map((a) => a.ms)),
    },
    text: {
      validity: rate(attempts, text),
      jsonValidity: rate(attempts, (a) => a.protocol === 'text' && a.task === 'schema'),
      medianMs: median(attempts.filter((a) => a.protocol === 'text').map((a) => a.ms)),
    },
  };
  const tools = summary.native.callValidity >= GOOD && summary.native.callValidity >= summary.text.validity;
  return {
    model,
    server,
    probedAt: now.toISOString(),
    repeats,
    summary,
    recommends: { tools, parallel: tools && summary.native.parallelHonoured >= 0.5, responseFormat: summary.native.jsonSchemaValidity >= GOOD },
    attempts,
  };
};

/** The record in a few lines for a terminal. */
export const describeRecord = (r: ProbeRecord): string => {
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  const ms = (x: number | null) => (x === null ? 'n/a' : `${x} ms`);
  const { native, text } = r.summary;
  return [
    `${r.model} on ${r.server} (${r.repeats} rounds)`,
    `  native calls valid ${pct(native.callValidity)} (quotes and Unicode ${pct(native.quotesValidity)}, streamed ${pct(native.streamedValidity)}); two calls in one turn ${pct(native.parallelHonoured)}; JSON schema valid ${pct(native.jsonSchemaValidity)}; median ${ms(native.medianMs)} a call`,
    `  text protocol valid ${pct(text.validity)}; JSON asked in words valid ${pct(text.jsonValidity)}; median ${ms(text.medianMs)} a call`,
    `  auto will send: ${r.recommends.tools ? 'functions' : 'text'}${r.recommends.tools ? (r.recommends.parallel ? ' (parallel calls honoured)' : ' (one call a turn)') : ''}; reply schemas ${r.recommends.responseFormat ? 'yes' : 'no'}`,
  ].join('\n');
};
