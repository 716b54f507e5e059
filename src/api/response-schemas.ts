// Loaded first for its side effect: it gives zod's schemas the `.openapi(name)` used below.
import '@hono/zod-openapi';
import * as z from 'zod';
import { RUN_STATUSES, VARIANTS } from '../engine/types';

/**
 * What the API answers, as zod schemas the route definitions reference; /openapi.json is generated from them.
 * Handlers build these values elsewhere (the run view, the run index); the schemas describe them for clients
 * and the type checker holds handlers to them. `.openapi(name)` makes a schema a named component.
 */

export const errorSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .openapi('Error', { description: 'Every error: a machine-readable code and a message that says what to change.' });

export const runStatusSchema = z.enum(RUN_STATUSES).openapi('RunStatus', {
  description:
    'queued → running → one of: succeeded (an answer), failed (an error, maybe a partial answer), limited (a per-run limit ended it; partial answer), cancelled (DELETE /v1/runs/{id}).',
});

const purposeUsage = z.looseObject({
  calls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  model: z.string().optional(),
  models: z.record(z.string(), z.number().int()).optional().meta({ description: 'calls per model, when more than one served this purpose' }),
});

export const usageSchema = z
  .looseObject({
    llmCalls: z.number().int(),
    toolCalls: z.number().int(),
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    byPurpose: z.record(z.string(), purposeUsage).meta({ description: 'per purpose (agent, code, check, attribute, vision, …): calls, tokens and the model that served it' }),
    byTool: z.record(z.string(), z.number().int()).meta({ description: 'calls per tool' }),
    replayMisses: z.number().int().optional().meta({ description: 'replayed runs only: evidence requests the archive did not hold' }),
    evidence: z
      .object({ cacheHits: z.number().int(), cacheMisses: z.number().int(), gateWaits: z.number().int(), gateWaitMs: z.number().int() })
      .optional()
      .meta({ description: 'live evidence: requests served by the cache all runs share, requests sent upstream, and waits at the politeness gates' }),
    context: z
      .object({ trimmed: z.number().int(), retried: z.number().int() })
      .optional()
      .meta({ description: "prompts shortened to fit the model's context window, and how many of them only after the server refused the longer prompt" }),
    prefetch: z
      .object({ pages: z.number().int(), hits: z.number().int() })
      .optional()
      .meta({ description: "pages fetched in the background for a search's top hit, and reads they served without waiting for the source" }),
    modelGate: z
      .object({ waits: z.number().int(), waitMs: z.number().int() })
      .optional()
      .meta({ description: "model calls that waited at their model's politeness gate (LLM_CONCURRENCY, or a server's Retry-After shared by every run), and the time they waited" }),
    promptReuse: z
      .record(z.string(), z.object({ calls: z.number().int(), chars: z.number().int(), repeatedChars: z.number().int(), share: z.number() }))
      .optional()
      .meta({
        description:
          'per purpose, over the calls that followed another call of the same purpose: prompt characters, the characters that repeat the start of the previous prompt (what a provider prefix cache can serve), and their share',
      }),
  })
  .openapi('Usage');

const runLink = z.object({ runId: z.string(), fromStep: z.number().int() });

export const citationSchema = z
  .object({
    source: z.string().meta({ description: 'the key of `answers` this citation backs' }),
    key: z.string().meta({ description: "the evidence record's key (GET /v1/runs/{id}/evidence), or `context …` for the caller's table, passages and pages" }),
    kind: z.string().meta({ description: 'wikipedia, search, wikidata, kg, table, passage, web; missing when the run recorded no such evidence' }),
    url: z.string().optional(),
    quote: z.string().optional().meta({ description: 'the short span of the record that contains the answer (verified citations only)' }),
    verified: z.boolean().meta({ description: 'the record is one this run received, and the answer occurs in it' }),
    support: z.enum(['supports', 'mentions']).optional().meta({
      description:
        'verified citations only: `supports` when the record states the answer about what the question asks, `mentions` when the answer only occurs in it; only supporting citations count toward `confidence` (docs/CONFIDENCE.md)',
    }),
    supportBy: z.literal('model').optional().meta({ description: 'set when options.supportCheck "model" graded the citation: the verdict of the model behind purpose `verify`' }),
  })
  .openapi('Citation');

export const runSchema = z
  .looseObject({
    runId: z.string(),
    question: z.string().meta({ description: 'the question as asked: for POST /v1/chat/completions, the last user message' }),
    standaloneQuestion: z.string().nullable().meta({
      description:
        'the question the run answered when a chat request had earlier turns: the asked question made self-contained from them by the run\'s first step (a `rewrite` model call); null for a run without earlier turns (it answers `question` as asked) or before that step has run',
    }),
    conversation: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() }))
      .nullable()
      .meta({ description: "the chat's earlier turns the rewrite read, oldest first, as bounded by the API (docs/API.md); null without them" }),
    variant: z.enum(VARIANTS),
    mode: z.string(),
    status: runStatusSchema,
    answer: z.string().nullable(),
    answers: z.record(z.string(), z.string()).meta({ description: 'per source (wikipedia, wikidata, parametric, program, …): what it answered' }),
    sources: z.array(z.looseObject({ title: z.string().optional(), url: z.string().optional(), kind: z.string().optional() })),
    confidence: z.string().nullable().meta({
      description:
        'agreement of the sources whose answer a supporting citation verified in this run\'s evidence: all_agree, two_agree, conflict, one_source, none (docs/CONFIDENCE.md)',
    }),
    agreementSources: z
      .array(z.string())
      .meta({ description: "keys of `answers` with a supporting citation (verified, and graded `supports`), which the confidence is computed over; a source whose citations only mention its answer is not one, and the model's own knowledge never counts" }),
    citations: z.array(citationSchema).meta({ description: 'the evidence each source answer cites, each checked against what this run recorded' }),
    entities: z
      .array(z.object({ id: z.string().regex(/^Q[0-9]+$/), label: z.string() }))
      .meta({ description: 'the Wikidata entities behind the answer, one per item of a list answer (empty when not known)' }),
    error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
    steps: z
      .array(z.looseObject({ id: z.number().int(), type: z.string(), at: z.number().int() }))
      .meta({ description: 'thought, action, observation, answer and error events, each with its own fields' }),
    usage: usageSchema,
    timings: z.object({
      totalMs: z.number().int(),
      steps: z.number().int(),
      firstAnswerTokenMs: z
        .number()
        .int()
        .nullable()
        .optional()
        .meta({ description: "ms from the run's start to the first streamed piece of its answer (a `delta` event with `answer: true`), or to the answer itself when it was not streamed; null before there is one" }),
    }),
    replay: z
      .object({ archiveId: z.string(), misses: z.number().int() })
      .nullable()
      .meta({ description: "set when the run's evidence was served from an uploaded archive: its id and how many requests it did not hold" }),
    parent: runLink.nullable().meta({ description: 'the run this one was forked from, and after which of its steps' }),
    forks: z.array(runLink).meta({ description: 'runs forked from this one' }),
    checkpoints: z
      .array(z.object({ step: z.number().int(), lastEventId: z.number().int() }))
      .meta({ description: 'the steps a fork can start after (POST /v1/runs/{id}/fork), each with the id of the last event that step stored' }),
    traceId: z
      .string()
      .nullable()
      .meta({ description: "the run's OpenTelemetry trace id (32 hex digits) when the deployment exports traces (OTEL_EXPORTER_OTLP_ENDPOINT), else null" }),
    waitingOn: z
      .array(z.object({ kind: z.literal('model'), purpose: z.string(), model: z.string(), since: z.number().int() }))
      .meta({ description: 'the model calls an unfinished run is waiting on now (gate, retries and reading the reply included), each with its purpose and when it began (epoch ms); empty once the run has ended' }),
  })
  .openapi('Run');

export const runSummarySchema = z
  .object({
    runId: z.string(),
    question: z.string().meta({ description: 'the question as asked (for a chat: the last user message)' }),
    standaloneQuestion: z.string().nullable().meta({ description: "a chat's follow-up as the run answered it, made self-contained by its rewrite step; null without earlier turns or before that step" }),
    variant: z.string(),
    mode: z.string(),
    status: runStatusSchema,
    answer: z.string().nullable().meta({ description: 'the final (or partial) answer, cut at 2,000 characters; null while running' }),
    createdAt: z.number().int().meta({ description: 'epoch milliseconds' }),
    durationMs: z.number().int().nullable().meta({ description: 'null until the run has ended' }),
  })
  .openapi('RunSummary');

export const runPageSchema = z
  .object({ runs: z.array(runSummarySchema), nextCursor: z.string().nullable().meta({ description: 'pass as `cursor` for the next page; null on the last page' }) })
  .openapi('RunPage');

export const forkCreatedSchema = z.object({ runId: z.string(), parent: runLink });

export const archiveCreatedSchema = z.object({
  archiveId: z.string().meta({ description: 'use as options.evidence.replay, or as the deploy-wide EVIDENCE_REPLAY' }),
  records: z.number().int(),
});

export const toolResultSchema = z.object({
  output: z.string().meta({ description: 'what the agent would observe; starts with "Error:" when the tool failed' }),
  ms: z.number(),
  error: z.boolean().optional(),
});

export const modelSchema = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() }).openapi('Model');

export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelSchema) });

export const healthSchema = z
  .looseObject({
    ok: z.boolean().meta({ description: 'false when the evidence store did not answer a trivial query just now' }),
    llm: z.looseObject({ ready: z.boolean(), provider: z.string(), model: z.string().optional(), message: z.string().optional() }),
    evidence: z.looseObject({ kind: z.string(), checked: z.boolean(), ready: z.boolean().optional(), message: z.string().optional() }),
    embeddings: z.object({ provider: z.string() }),
    variants: z.array(z.enum(VARIANTS)),
    modes: z.array(z.string()),
    defaultModes: z.record(z.enum(VARIANTS), z.string()).meta({ description: 'the mode each variant runs when a request names none' }),
    limits: z.object({ maxSteps: z.number().int(), maxLLMCalls: z.number().int(), maxWallMs: z.number().int(), maxTokens: z.number().int() }),
    auth: z.string(),
    version: z.string().meta({ description: "the service's version (package.json)" }),
    commit: z.string().meta({ description: 'the git commit the code was bundled from ("-dirty" when tracked files had uncommitted changes; "unknown" outside a git checkout)' }),
    tracing: z
      .object({ on: z.boolean() })
      .meta({ description: 'whether runs are exported as OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT is set); the collector is not named' }),
    warnings: z
      .array(z.string())
      .optional()
      .meta({ description: 'configuration worth fixing that does not stop the service: live evidence to Wikimedia without WIKIMEDIA_CONTACT, or with POLITENESS=off' }),
  })
  .openapi('Health');

export const chatCompletionSchema = z
  .looseObject({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal('assistant'), content: z.string(), reasoning_content: z.string() }),
        finish_reason: z.string(),
      }),
    ),
    usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
    run: z
      .looseObject({
        runId: z.string(),
        status: runStatusSchema,
        confidence: z.string().nullable(),
        agreementSources: z.array(z.string()),
        citations: z.array(citationSchema),
        error: z
          .object({ code: z.string(), message: z.string() })
          .optional()
          .meta({ description: "the run's error event when it has one: for a run cut short by a limit (`limited`, finish_reason `length`), the limit's code (`limit_steps`, …) and message" }),
      })
      .meta({
        description:
          "not an OpenAI field: the run behind the completion and what its answer rests on (docs/CONFIDENCE.md); a streamed completion carries it on the chunk with the answer (without status), and the last chunk of a run that did not succeed carries `{runId, status, error?}`",
      }),
  })
  .openapi('ChatCompletion');
