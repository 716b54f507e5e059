import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { loadConfig, type Config } from '../config';
import { VARIANTS, type Variant } from '../engine/types';
import { availableModes } from '../strategies';
import { HttpError } from './errors';
import { modelListSchema, modelSchema } from './response-schemas';
import { apiRoutes, errors, json } from './route-kit';

/** Fixed so that the model list is stable across requests and deploys (OpenAI clients show it). */
const CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z

export interface ModelChoice {
  variant: Variant;
  /** Undefined: the variant's default mode. */
  mode?: string;
}

/** Model ids are a variant ("mintaka") or a variant and a mode ("mintaka:parametric"). */
export const modelIds = (config: Config): string[] => [
  ...VARIANTS,
  ...VARIANTS.flatMap((v) => availableModes(config).map((m) => `${v}:${m}`)),
];

export const parseModel = (model: string, config: Config): ModelChoice => {
  const [variant, mode, ...rest] = model.trim().split(':');
  const known = (VARIANTS as readonly string[]).includes(variant);
  if (!known || rest.length || (mode !== undefined && !availableModes(config).includes(mode))) {
    throw new HttpError(404, 'model_not_found', `no model "${model.slice(0, 80)}"; use a variant (${VARIANTS.join(', ')}), optionally with a mode: "mintaka:${availableModes(config)[0] ?? 'parametric'}" (GET /v1/models lists them)`);
  }
  return { variant: variant as Variant, ...(mode ? { mode } : {}) };
};

const modelObject = (id: string) => ({ id, object: 'model' as const, created: CREATED, owned_by: 'humaniq' });

const listModelsRoute = createRoute({
  method: 'get',
  path: '/v1/models',
  operationId: 'listModels',
  summary: 'OpenAI-compatible model list: each variant and variant:mode',
  responses: { 200: { description: 'models', content: json(modelListSchema) }, ...errors() },
});

const getModelRoute = createRoute({
  method: 'get',
  path: '/v1/models/{id}',
  operationId: 'getModel',
  summary: 'One model',
  request: { params: z.object({ id: z.string().max(200).meta({ description: 'a variant, or variant:mode' }) }) },
  responses: { 200: { description: 'model', content: json(modelSchema) }, ...errors(404) },
});

/** GET /v1/models: the OpenAI-style model list, one model per variant plus each variant:mode. */
export const modelRoutes = apiRoutes()
  .openapi(listModelsRoute, (c) => {
    const config = loadConfig(c.env as unknown as Record<string, unknown>);
    return c.json({ object: 'list' as const, data: modelIds(config).map(modelObject) }, 200);
  })
  .openapi(getModelRoute, (c) => {
    const config = loadConfig(c.env as unknown as Record<string, unknown>);
    const { id } = c.req.valid('param');
    parseModel(id, config);
    return c.json(modelObject(id), 200);
  });
