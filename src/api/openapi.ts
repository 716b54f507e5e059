import * as z from 'zod';
import { RUN_STATUSES, VARIANTS } from '../engine/types';
import { DEFAULT_RUNS_PAGE, MAX_RUNS_PAGE } from './runs';
import { chatRequestSchema } from './chat-schema';
import { MODE_OPTIONS } from './options-schemas';
import { answerRequestSchema, MAX_BODY_BYTES, MAX_CONTEXT_BODY_BYTES, MAX_PAGE_BYTES, MAX_QUESTION_CHARS } from './schemas';

/**
 * The OpenAPI 3.1 document at /openapi.json. Request bodies come from the same zod schemas that validate them
 * (z.toJSONSchema, input side); every route the app serves appears — a route nobody documented yet still gets
 * an entry marked as such, so clients can see it exists.
 */

type Json = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
};

const errorSchema: Json = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] } },
  required: ['error'],
};

const usageSchema: Json = {
  type: 'object',
  properties: {
    llmCalls: { type: 'integer' },
    toolCalls: { type: 'integer' },
    promptTokens: { type: 'integer' },
    completionTokens: { type: 'integer' },
    byPurpose: {
      type: 'object',
      description: 'per purpose (agent, code, check, attribute, vision, …): calls, promptTokens, completionTokens, the model that served it, and models (calls per model) when more than one did',
      additionalProperties: {
        type: 'object',
        properties: {
          calls: { type: 'integer' },
          promptTokens: { type: 'integer' },
          completionTokens: { type: 'integer' },
          model: { type: 'string' },
          models: { type: 'object', additionalProperties: { type: 'integer' } },
        },
      },
    },
    byTool: { type: 'object' },
  },
};

const runSchema: Json = {
  type: 'object',
  properties: {
    runId: { type: 'string', format: 'uuid' },
    question: { type: 'string' },
    variant: { type: 'string', enum: [...VARIANTS] },
    mode: { type: 'string' },
    status: { $ref: '#/components/schemas/RunStatus' },
    answer: { type: ['string', 'null'] },
    answers: { type: 'object', additionalProperties: { type: 'string' } },
    sources: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' }, url: { type: 'string' }, kind: { type: 'string' } } } },
    confidence: {
      type: ['string', 'null'],
      description: 'agreement of the sources that answered from evidence: all_agree, two_agree, conflict, one_source, none (program mode: high, low)',
    },
    agreementSources: { type: 'array', items: { type: 'string' }, description: 'keys of `answers` the confidence is computed over; the model\'s own knowledge never counts' },
    entities: {
      type: 'array',
      description: 'the Wikidata entities behind the answer, one per item of a list answer (empty when not known)',
      items: { type: 'object', properties: { id: { type: 'string', pattern: '^Q[0-9]+$' }, label: { type: 'string' } }, required: ['id', 'label'] },
    },
    error: { oneOf: [{ type: 'null' }, { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } }] },
    steps: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, type: { type: 'string' }, at: { type: 'integer' } } } },
    usage: { $ref: '#/components/schemas/Usage' },
    timings: { type: 'object', properties: { totalMs: { type: 'integer' }, steps: { type: 'integer' } } },
    replay: {
      description: 'set when the run\'s evidence was served from an uploaded archive: its id and how many requests it did not hold',
      oneOf: [{ type: 'null' }, { type: 'object', properties: { archiveId: { type: 'string' }, misses: { type: 'integer' } }, required: ['archiveId', 'misses'] }],
    },
    parent: {
      description: 'the run this one was forked from, and after which of its steps',
      oneOf: [{ type: 'null' }, { type: 'object', properties: { runId: { type: 'string', format: 'uuid' }, fromStep: { type: 'integer' } }, required: ['runId', 'fromStep'] }],
    },
    forks: { type: 'array', description: 'runs forked from this one', items: { type: 'object', properties: { runId: { type: 'string', format: 'uuid' }, fromStep: { type: 'integer' } } } },
    checkpoints: {
      type: 'array',
      description: 'the steps a fork can start after (POST /v1/runs/{id}/fork), each with the id of the last event that step stored',
      items: { type: 'object', properties: { step: { type: 'integer' }, lastEventId: { type: 'integer' } } },
    },
  },
  required: ['runId', 'status', 'answer', 'steps'],
};

const runStatusSchema: Json = {
  type: 'string',
  enum: [...RUN_STATUSES],
  description:
    'queued → running → one of: succeeded (an answer), failed (an error, maybe a partial answer), limited (a per-run limit ended it; partial answer), cancelled (DELETE /v1/runs/{id}).',
};

const runSummarySchema: Json = {
  type: 'object',
  properties: {
    runId: { type: 'string', format: 'uuid' },
    question: { type: 'string' },
    variant: { type: 'string', enum: [...VARIANTS] },
    mode: { type: 'string' },
    status: { $ref: '#/components/schemas/RunStatus' },
    answer: { type: ['string', 'null'], description: 'the final (or partial) answer, cut at 2,000 characters; null while running' },
    createdAt: { type: 'integer', description: 'epoch milliseconds' },
    durationMs: { type: ['integer', 'null'], description: 'null until the run has ended' },
  },
  required: ['runId', 'question', 'variant', 'mode', 'status', 'answer', 'createdAt', 'durationMs'],
};

const sseContent = (description: string) => ({ 'text/event-stream': { schema: { type: 'string', description } } });
const jsonContent = (schema: Json) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_TEXT[s] ?? 'error', content: jsonContent(ref('Error')) }]));

const ERROR_TEXT: Record<number, string> = {
  400: 'invalid request (the message says which field and why)',
  401: 'missing or invalid API key',
  404: 'not found',
  409: 'conflict with the resource\'s state (e.g. cancelling a run that already ended)',
  413: 'request body over its size limit',
  415: 'wrong Content-Type',
  429: 'rate limit reached; see the Retry-After header',
  502: 'the run ended without an answer',
  503: 'no language model is configured',
};

const runIdParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

const LIMITS_TEXT =
  `Limits (bytes of UTF-8; 413 over them): body ≤ ${MAX_BODY_BYTES} bytes, or with a \`context\` object ≤ ${MAX_CONTEXT_BODY_BYTES} bytes of which ≤ ${MAX_BODY_BYTES} outside it; ` +
  `each page's html ≤ ${MAX_PAGE_BYTES} bytes, ≤ 50 pages; table ≤ 200 columns × 5,000 rows. Question ≤ ${MAX_QUESTION_CHARS} characters ` +
  `after Unicode NFC and removal of control characters (400 over it). Content-Type must be application/json (415 otherwise).`;

type Operation = Json & { summary: string };
type Paths = Record<string, Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>>>;

const open = { security: [] as unknown[] };

const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** The demonstration workbench (src/api/demonstrations.ts); its input schema is passed in by the app when present. */
const demonstrationPaths = (input: Json): Paths => {
  const one = { type: 'object', description: 'a stored demonstration: the input fields plus id, createdAt, updatedAt' };
  return {
    '/v1/demonstrations': {
      get: { summary: 'List stored demonstrations (hand-written solution processes)', operationId: 'listDemonstrations', responses: { 200: { description: '{demonstrations: [...]}', content: jsonContent({ type: 'object' }) }, ...errors(401, 429) } },
      post: { summary: 'Store a demonstration', operationId: 'createDemonstration', requestBody: { required: true, content: jsonContent(input) }, responses: { 201: { description: 'stored', content: jsonContent(one) }, ...errors(400, 401, 413, 429) } },
    },
    '/v1/demonstrations/import': {
      post: {
        summary: 'Import one demonstration from the few-shot library text format',
        operationId: 'importDemonstration',
        requestBody: { required: true, content: jsonContent({ type: 'object', properties: { benchmark: { type: 'string' }, text: { type: 'string', maxLength: 60_000 } }, required: ['benchmark', 'text'], additionalProperties: false }) },
        responses: { 201: { description: 'stored', content: jsonContent(one) }, ...errors(400, 401, 413, 429) },
      },
    },
    '/v1/demonstrations/{id}': {
      get: { summary: 'One demonstration', operationId: 'getDemonstration', parameters: [idParam], responses: { 200: { description: 'the demonstration', content: jsonContent(one) }, ...errors(401, 404, 429) } },
      put: { summary: 'Replace a demonstration', operationId: 'replaceDemonstration', parameters: [idParam], requestBody: { required: true, content: jsonContent(input) }, responses: { 200: { description: 'replaced', content: jsonContent(one) }, ...errors(400, 401, 404, 429) } },
      delete: { summary: 'Delete a demonstration', operationId: 'deleteDemonstration', parameters: [idParam], responses: { 200: { description: 'deleted' }, ...errors(401, 404, 429) } },
    },
    '/v1/demonstrations/{id}/export': {
      get: { summary: 'A demonstration in the few-shot library text format', operationId: 'exportDemonstration', parameters: [idParam], responses: { 200: { description: 'library text', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errors(401, 404, 429) } },
    },
  };
};

const documented = (): Paths => ({
  '/healthz': {
    get: { ...open, summary: 'Service health: model, evidence (the static store answers a trivial query on every call; ok is false when it does not), variants, modes and whether auth is on', operationId: 'health', responses: { 200: { description: 'health', content: jsonContent({ type: 'object' }) } } },
  },
  '/openapi.json': {
    get: { ...open, summary: 'This document', operationId: 'openapi', responses: { 200: { description: 'OpenAPI 3.1 document', content: jsonContent({ type: 'object' }) } } },
  },
  '/v1/answer': {
    post: {
      summary: 'Answer a question (JSON run, or an SSE stream of the run when Accept: text/event-stream)',
      description: LIMITS_TEXT,
      operationId: 'answer',
      requestBody: { required: true, content: jsonContent(ref('AnswerRequest')) },
      responses: {
        200: {
          description: 'the finished run, or its event stream (events run, thought, action, observation, answer, error, done)',
          headers: { 'x-run-id': { schema: { type: 'string' } } },
          content: { ...jsonContent(ref('Run')), ...sseContent('SSE events; each id is the step number') },
        },
        ...errors(400, 401, 413, 429, 503),
      },
    },
  },
  '/v1/runs': {
    get: {
      summary: "Recent runs, newest first: the caller's own when the API has keys, every run on an open server",
      operationId: 'listRuns',
      parameters: [
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_RUNS_PAGE, default: DEFAULT_RUNS_PAGE } },
        { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'nextCursor of the previous page' },
      ],
      responses: {
        200: {
          description: 'one page of runs; nextCursor is null on the last page',
          content: jsonContent({
            type: 'object',
            properties: { runs: { type: 'array', items: ref('RunSummary') }, nextCursor: { type: ['string', 'null'] } },
            required: ['runs', 'nextCursor'],
          }),
        },
        ...errors(400, 401, 429),
      },
    },
  },
  '/v1/runs/{id}': {
    get: { summary: 'A run with its steps', operationId: 'getRun', parameters: [runIdParam], responses: { 200: { description: 'the run', content: jsonContent(ref('Run')) }, ...errors(401, 404, 429) } },
    delete: {
      summary: 'Cancel a queued or running run',
      description:
        'The step in flight is abandoned (its model or tool call is aborted, nothing of it is stored), no further step runs, and the run ends with status ' +
        '`cancelled`: an `error` event (code `cancelled`), the partial answer if there is one, and `done` with status `cancelled`. ' +
        'Cancelling a cancelled run again answers the same (idempotent); a run that ended otherwise answers 409 `run_finished`.',
      operationId: 'cancelRun',
      parameters: [runIdParam],
      responses: { 200: { description: 'the run, now cancelled', content: jsonContent(ref('Run')) }, ...errors(401, 404, 409, 429) },
    },
  },
  '/v1/runs/{id}/events': {
    get: {
      summary: 'Replay and follow a run as SSE; resume with Last-Event-ID or ?after=',
      operationId: 'runEvents',
      parameters: [
        runIdParam,
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer', minimum: 0 } },
        { name: 'after', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
      ],
      responses: { 200: { description: 'event stream', content: sseContent('SSE events after the given id') }, ...errors(400, 401, 404, 429) },
    },
  },
  '/v1/runs/{id}/evidence': {
    get: {
      summary: 'Every evidence request → response the run received, as a portable JSONL archive (docs/ARCHIVE.md)',
      operationId: 'runEvidence',
      parameters: [runIdParam],
      responses: { 200: { description: 'the archive: a header line, then one {key, request, response} record per line', content: { 'application/x-ndjson': { schema: { type: 'string' } } } }, ...errors(401, 404, 429) },
    },
  },
  '/v1/runs/{id}/fork': {
    post: {
      summary: 'Start a new run from a stored step of this one',
      description:
        'The new run starts with this run\'s stored events up to `fromStep` (copied, not executed again) and the strategy state after that step, then continues — ' +
        'optionally on another model (`model`) or with other options (`options`, merged over the parent\'s). The parent is not changed except that it lists the fork. ' +
        'Valid steps are the run\'s `checkpoints` (0 = before the first step; the step that ended the run is not one).',
      operationId: 'forkRun',
      parameters: [runIdParam],
      requestBody: {
        required: true,
        content: jsonContent({
          type: 'object',
          properties: { fromStep: { type: 'integer', minimum: 0 }, model: { type: 'string', maxLength: 200 }, options: { type: 'object' } },
          required: ['fromStep'],
          additionalProperties: false,
        }),
      },
      responses: {
        201: {
          description: 'the new run, started; follow it with GET /v1/runs/{runId} or its events',
          content: jsonContent({ type: 'object', properties: { runId: { type: 'string', format: 'uuid' }, parent: { type: 'object' } }, required: ['runId', 'parent'] }),
        },
        ...errors(400, 401, 404, 413, 429, 503),
      },
    },
  },
  '/v1/archives': {
    post: {
      summary: 'Upload an evidence archive to replay runs from',
      description:
        'The body is an archive in the JSONL format of GET /v1/runs/{id}/evidence (Content-Type application/x-ndjson, at most 64 MB). ' +
        'Use the returned id as `options.evidence.replay` of a run, or as the deploy-wide EVIDENCE_REPLAY.',
      operationId: 'uploadArchive',
      requestBody: { required: true, content: { 'application/x-ndjson': { schema: { type: 'string' } } } },
      responses: {
        201: { description: 'stored', content: jsonContent({ type: 'object', properties: { archiveId: { type: 'string' }, records: { type: 'integer' } }, required: ['archiveId', 'records'] }) },
        ...errors(400, 401, 413, 415, 429),
      },
    },
  },
  '/v1/tools/{name}': {
    post: {
      summary: 'Run one HQA tool by hand against the configured evidence',
      operationId: 'runTool',
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: {
        required: true,
        content: jsonContent({ type: 'object', properties: { input: { oneOf: [{ type: 'string', maxLength: 20_000 }, { type: 'object' }] } }, required: ['input'], additionalProperties: false }),
      },
      responses: {
        200: { description: 'tool output', content: jsonContent({ type: 'object', properties: { output: { type: 'string' }, ms: { type: 'number' }, error: { type: 'boolean' } } }) },
        ...errors(400, 401, 404, 429, 503),
      },
    },
  },
  '/v1/chat/completions': {
    post: {
      summary: 'OpenAI-compatible chat completions: model = variant or variant:mode; the last user message is the question',
      description: `Streams reasoning steps as \`reasoning_content\` deltas and the answer as \`content\`, usage in the final chunk, then \`data: [DONE]\`. ${LIMITS_TEXT}`,
      operationId: 'chatCompletions',
      requestBody: { required: true, content: jsonContent(ref('ChatCompletionRequest')) },
      responses: {
        200: { description: 'chat.completion, or chat.completion.chunk frames when stream is true', content: { ...jsonContent({ type: 'object' }), ...sseContent('chat.completion.chunk frames ending with data: [DONE]') } },
        ...errors(400, 401, 404, 413, 429, 502, 503),
      },
    },
  },
  '/v1/models': {
    get: { summary: 'OpenAI-compatible model list: each variant and variant:mode', operationId: 'listModels', responses: { 200: { description: 'models', content: jsonContent({ type: 'object' }) }, ...errors(401, 429) } },
  },
  '/v1/models/{id}': {
    get: {
      summary: 'One model',
      operationId: 'getModel',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { 200: { description: 'model', content: jsonContent({ type: 'object' }) }, ...errors(401, 404, 429) },
    },
  },
});

const optionsName = (mode: string) => `Options_${mode.replace(/[^A-Za-z0-9_]/g, '_')}`;

/** One component per mode: the keys its `options` take (strict: any other key is a 400). */
const optionSchemas = () => Object.fromEntries(Object.entries(MODE_OPTIONS).map(([mode, schema]) => [optionsName(mode), { ...jsonSchema(schema), title: `options of mode "${mode}"` }]));

/** A request's `options` is one mode's options: which one is decided by the request's mode. */
const withModeOptions = (schema: Json): Json => {
  const props = schema.properties as Record<string, Json> | undefined;
  if (!props?.options) return schema;
  const { description } = props.options;
  return { ...schema, properties: { ...props, options: { description, anyOf: Object.keys(MODE_OPTIONS).map((m) => ref(optionsName(m))) } } };
};

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Hono's "/v1/runs/:id" → OpenAPI's "/v1/runs/{id}". */
export const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');

export const openApiDocument = (routes: Array<{ method: string; path: string }>, serverUrl?: string, schemas: Record<string, z.ZodType> = {}) => {
  const extra = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, jsonSchema(schema)]));
  const served = new Set(routes.map((r) => openApiPath(r.path)));
  // Workbench routes are documented only when the app serves them (a deployment may leave them out).
  const workbench = Object.entries(demonstrationPaths(extra.DemonstrationInput ? ref('DemonstrationInput') : { type: 'object' })).filter(([p]) => served.has(p));
  const paths: Paths = { ...documented(), ...Object.fromEntries(workbench) };
  for (const r of routes) {
    const method = r.method.toLowerCase();
    if (!METHODS.has(method) || r.path.includes('*')) continue;
    const path = openApiPath(r.path);
    const entry = (paths[path] ??= {});
    const m = method as keyof (typeof paths)[string];
    if (!entry[m]) {
      const params = [...path.matchAll(/\{([^}]+)\}/g)].map((p) => ({ name: p[1], in: 'path', required: true, schema: { type: 'string' } }));
      entry[m] = { summary: `${method.toUpperCase()} ${path} (not yet described)`, ...(params.length ? { parameters: params } : {}), responses: { 200: { description: 'success' }, ...errors(401, 429) } };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'HumanIQ answers',
      version: '0.1.0',
      description: 'Answers factual questions over Wikipedia, Wikidata, tables and web pages (HQA agent, HProPro program mode, CRAG-style hybrid RAG). /v1/* needs `Authorization: Bearer <key>` when the deployment sets API_KEYS.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        AnswerRequest: withModeOptions(jsonSchema(answerRequestSchema)),
        ChatCompletionRequest: withModeOptions(jsonSchema(chatRequestSchema)),
        ...optionSchemas(),
        Run: runSchema,
        RunSummary: runSummarySchema,
        RunStatus: runStatusSchema,
        Usage: usageSchema,
        Error: errorSchema,
        ...extra,
      },
    },
  };
};
