import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { loadConfig } from '../config';
import { VARIANTS } from '../engine/types';
import { createLLM } from '../llm';
import { serviceSettings } from '../runs/service-settings';
import { availableModes } from '../strategies';
import { HttpError } from './errors';
import { apiRoutes, errors, json } from './route-kit';

const nullableHost = z.string().nullable();

const settingsSchema = z
  .object({
    version: z.string(),
    commit: z.string(),
    llm: z.looseObject({ provider: z.string(), model: z.string().nullable(), host: nullableHost.meta({ description: 'the model server\'s host (never its key)' }) }),
    embeddings: z.looseObject({ provider: z.string(), model: z.string().nullable() }),
    purposes: z
      .record(
        z.string(),
        z.object({
          model: z.string().nullable(),
          contextTokens: z.number().int().nullable(),
          temperature: z.number().nullable(),
          toolProtocol: z.object({ configured: z.string(), tools: z.enum(['native', 'text']), structured: z.boolean(), why: z.string() }),
        }),
      )
      .meta({
        description:
          'per purpose: the model it goes to, that model\'s context window (null: none known, prompts go as they are), its temperature (null: the server\'s default), and its tool protocol (LLM_TOOL_PROTOCOL[_<PURPOSE>] and how it is spoken to this model; a run\'s options.toolProtocol or recipe "paper" overrides it)',
      }),
    evidence: z.looseObject({
      mode: z.enum(['static', 'live']),
      replay: z.string().nullable(),
      endpoints: z.record(z.string(), nullableHost).meta({ description: 'hosts of the live endpoints (used when mode is live)' }),
    }),
    limits: z.looseObject({ maxSteps: z.number().int(), maxLLMCalls: z.number().int(), maxWallMs: z.number().int(), maxTokens: z.number().int() }),
    fewshot: z.object({
      library: z.string().nullable().meta({ description: 'FEWSHOT_LIBRARY: the library every agent run selects from, else each variant\'s own' }),
      libraries: z.record(z.string(), z.object({ sha256: z.string(), processes: z.number().int(), ids: z.array(z.string()) })),
    }),
    variants: z.array(z.string()),
    modes: z.array(z.string()),
    defaultModes: z.record(z.string(), z.string()),
    resolved: z
      .object({ variant: z.string(), mode: z.string(), options: z.record(z.string(), z.unknown()) })
      .optional()
      .meta({ description: 'with ?variant=, ?mode= or ?options=: every option of such a run (and of ?options=) once its defaults are applied' }),
  })
  .openapi('ServiceSettings', { description: 'The service\'s settings that decide what a run does; no secret, token or full URL.' });

const settingsRoute = createRoute({
  method: 'get',
  path: '/v1/config',
  operationId: 'serviceSettings',
  summary: 'How the service is set up: evidence and its hosts, limits, each purpose\'s model, window and temperature, few-shot libraries by hash, and the options a variant and mode resolve to',
  request: {
    query: z.object({
      variant: z.enum(VARIANTS).optional(),
      mode: z.string().max(64).optional(),
      options: z.string().max(8192).optional().meta({ description: 'a JSON object of run options, as POST /v1/answer takes them' }),
    }),
  },
  responses: { 200: { description: 'the settings', content: json(settingsSchema) }, ...errors(400) },
});

const parseOptions = (raw: string | undefined): Record<string, unknown> | undefined => {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'invalid_request', 'options must be a JSON object of run options, e.g. {"recipe":"paper"}');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new HttpError(400, 'invalid_request', 'options must be a JSON object of run options');
  return value as Record<string, unknown>;
};

/** GET /v1/config: read-only, same auth and rate limit as the rest of /v1. */
export const settingsRoutes = apiRoutes().openapi(settingsRoute, async (c) => {
  const config = loadConfig(c.env as unknown as Record<string, unknown>);
  const { variant, mode, options } = c.req.valid('query');
  if (mode !== undefined && !availableModes(config).includes(mode)) {
    throw new HttpError(400, 'invalid_request', `mode must be one of ${availableModes(config).join(', ')}`);
  }
  const llm = createLLM(config, c.env);
  const settings = await serviceSettings(config, llm.ok ? llm.llm.model : config.LLM_MODEL, { variant, mode, options: parseOptions(options) });
  return c.json(settings, 200);
});
