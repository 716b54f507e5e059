import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import schema from '../../migrations/0003_demonstrations.sql';
import owners from '../../migrations/0006_demonstration_owners.sql';
import { onFirstUse } from '../d1/schema';
import { OPEN_OWNER } from '../storage/run-index';
import { TOOL_SYMBOLS } from '../fewshot/levenshtein';
import { parseProcess, processSlug, ProcessParseError, renderProcess } from '../fewshot/library';
import { runScope } from './auth';
import { cappedJsonBody } from './body';
import { HttpError } from './errors';
import { named } from './openapi';
import { apiRoutes, errors, json, jsonBody } from './route-kit';

/**
 * Solution processes written by hand in the workbench (the preparation stage of the HumanIQ method), stored in D1.
 * A process is only stored when it renders to a file the few-shot library parser accepts, so every stored
 * process exports cleanly to `fewshot/<benchmark>/<NN-slug>.txt`.
 *
 * A demonstration belongs to the key that stored it, like a run: another key lists, reads, replaces, deletes and
 * exports none of it (404, as for a run of another key). On an open server (no API_KEYS) every caller is one owner.
 * The bundled few-shot library (`fewshot/`) is another thing: shared by every key and read-only over the API.
 */

export const BENCHMARKS = ['mintaka', 'qald9plus', 'compmix'] as const;
const TOOL_NAMES = Object.keys(TOOL_SYMBOLS) as [string, ...string[]];

// Trailing blank lines are not allowed inside a library field, and people leave them in textareas.
const text = (max: number) => z.string().max(max).transform((s) => s.replace(/\r\n/g, '\n').trimEnd());
const required = (name: string, max: number) =>
  text(max).pipe(z.string().min(1, { message: `${name} must not be empty` }));

const stepSchema = z
  .object({
    thought: required('thought', 8_000),
    action: z.enum(TOOL_NAMES, { message: `action must be one of: ${TOOL_NAMES.join(', ')}` }),
    actionInput: required('actionInput', 4_000),
    observation: text(20_000).default(''),
    rating: z.number().int().min(1).max(5).nullable().default(null),
  })
  .strict();

export const demonstrationInputSchema = z
  .object({
    benchmark: z.enum(BENCHMARKS, { message: `benchmark must be one of: ${BENCHMARKS.join(', ')}` }),
    question: required('question', 2_000),
    steps: z.array(stepSchema).max(30),
    finalThought: required('finalThought', 8_000),
    finalAnswer: required('finalAnswer', 2_000),
  })
  .strict();

const importSchema = z
  .object({
    benchmark: z.enum(BENCHMARKS, { message: `benchmark must be one of: ${BENCHMARKS.join(', ')}` }),
    text: z.string().min(1).max(60_000).meta({ description: 'one solution process in the few-shot library text format (what GET /v1/demonstrations/{id}/export gives)' }),
  })
  .strict();

const demonstrationSchema = named('Demonstration', z.object({ ...demonstrationInputSchema.shape, id: z.string(), createdAt: z.number().int(), updatedAt: z.number().int() }));

export type DemonstrationInput = z.infer<typeof demonstrationInputSchema>;
export type Demonstration = DemonstrationInput & { id: string; createdAt: number; updatedAt: number };

interface Row {
  id: string;
  benchmark: string;
  question: string;
  steps: string;
  final_thought: string;
  final_answer: string;
  created_at: number;
  updated_at: number;
}

const fromRow = (r: Row): Demonstration => ({
  id: r.id,
  benchmark: r.benchmark as Demonstration['benchmark'],
  question: r.question,
  steps: JSON.parse(r.steps),
  finalThought: r.final_thought,
  finalAnswer: r.final_answer,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Creates the table on first use (same SQL as migrations/0003 and 0006), so a fresh local database needs no migration step. */
const ensureTable = onFirstUse(`${schema}\n${owners}`);

/** Whose demonstrations a request may touch: a key's own (`key:<hash>`), or on an open server every one (undefined). */
type Scope = string | undefined;

const database = (env: Env): D1Database => {
  const db = (env as { DB?: D1Database }).DB;
  if (!db) throw new HttpError(503, 'storage_unavailable', 'the D1 binding DB is missing; add [[d1_databases]] binding = "DB" to wrangler.toml');
  return db;
};

/** Refuses a process the library parser would reject (e.g. a line inside a field that starts with "Thought:"). */
const assertRenders = (input: DemonstrationInput) => {
  try {
    parseProcess(renderProcess(input), `${input.benchmark}/check`);
  } catch (err) {
    if (err instanceof ProcessParseError) {
      throw new HttpError(400, 'invalid_process', `the process would not parse as a few-shot file: ${err.message.replace(/^[^:]*\/check:/, 'line ')}`);
    }
    throw err;
  }
};


const getOne = async (db: D1Database, id: string, scope: Scope): Promise<Demonstration> => {
  await ensureTable(db);
  const row = await db.prepare('SELECT * FROM demonstrations WHERE id = ?1 AND (?2 IS NULL OR owner = ?2)').bind(id, scope ?? null).first<Row>();
  if (!row) throw new HttpError(404, 'not_found', `no demonstration with id "${id.slice(0, 80)}"`);
  return fromRow(row);
};

const insert = async (db: D1Database, input: DemonstrationInput, scope: Scope): Promise<Demonstration> => {
  assertRenders(input);
  await ensureTable(db);
  const now = Date.now();
  const item: Demonstration = { ...input, id: crypto.randomUUID(), createdAt: now, updatedAt: now };
  await db
    .prepare('INSERT INTO demonstrations (id, benchmark, question, steps, final_thought, final_answer, created_at, updated_at, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .bind(item.id, item.benchmark, item.question, JSON.stringify(item.steps), item.finalThought, item.finalAnswer, now, now, scope ?? OPEN_OWNER)
    .run();
  return item;
};

const idParams = z.object({ id: z.string().max(200) });
const inputBody = jsonBody(named('DemonstrationInput', demonstrationInputSchema));
const takesBody = { middleware: [cappedJsonBody()] };

const listRoute = createRoute({
  method: 'get',
  path: '/v1/demonstrations',
  operationId: 'listDemonstrations',
  summary: "List the caller's stored demonstrations (hand-written solution processes), most recently changed first, at most 500",
  request: { query: z.object({ benchmark: z.enum(BENCHMARKS, { message: `benchmark must be one of: ${BENCHMARKS.join(', ')}` }).optional() }) },
  responses: { 200: { description: 'the demonstrations', content: json(z.object({ demonstrations: z.array(demonstrationSchema) })) }, ...errors(400, 503) },
});

const createDemonstrationRoute = createRoute({
  method: 'post',
  path: '/v1/demonstrations',
  operationId: 'createDemonstration',
  summary: 'Store a demonstration',
  ...takesBody,
  request: { body: inputBody },
  responses: { 201: { description: 'stored', content: json(demonstrationSchema) }, ...errors(400, 413, 415, 503) },
});

const importRoute = createRoute({
  method: 'post',
  path: '/v1/demonstrations/import',
  operationId: 'importDemonstration',
  summary: 'Import one demonstration from the few-shot library text format',
  ...takesBody,
  request: { body: jsonBody(importSchema) },
  responses: { 201: { description: 'stored', content: json(demonstrationSchema) }, ...errors(400, 413, 415, 503) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/v1/demonstrations/{id}',
  operationId: 'getDemonstration',
  summary: 'One demonstration',
  request: { params: idParams },
  responses: { 200: { description: 'the demonstration', content: json(demonstrationSchema) }, ...errors(404, 503) },
});

const replaceRoute = createRoute({
  method: 'put',
  path: '/v1/demonstrations/{id}',
  operationId: 'replaceDemonstration',
  summary: 'Replace a demonstration',
  ...takesBody,
  request: { params: idParams, body: inputBody },
  responses: { 200: { description: 'replaced', content: json(demonstrationSchema) }, ...errors(400, 404, 413, 415, 503) },
});

const deleteRoute = createRoute({
  method: 'delete',
  path: '/v1/demonstrations/{id}',
  operationId: 'deleteDemonstration',
  summary: 'Delete a demonstration',
  request: { params: idParams },
  responses: { 204: { description: 'deleted' }, ...errors(404, 503) },
});

const exportRoute = createRoute({
  method: 'get',
  path: '/v1/demonstrations/{id}/export',
  operationId: 'exportDemonstration',
  summary: 'A demonstration in the few-shot library text format',
  request: { params: idParams },
  responses: {
    200: {
      description: 'the library file; x-fewshot-path says where it goes in the repository',
      headers: z.object({ 'x-fewshot-path': z.string() }),
      content: { 'text/plain': { schema: z.string() } },
    },
    ...errors(404, 503),
  },
});

/** Routes under /v1/demonstrations: list, create, read, replace, delete, export to and import from the library format. */
export const demonstrationRoutes = apiRoutes()
  .openapi(listRoute, async (c) => {
    const db = database(c.env);
    await ensureTable(db);
    const { benchmark } = c.req.valid('query');
    const { results } = await db
      .prepare('SELECT * FROM demonstrations WHERE (?1 IS NULL OR benchmark = ?1) AND (?2 IS NULL OR owner = ?2) ORDER BY updated_at DESC, id LIMIT 500')
      .bind(benchmark ?? null, runScope(c) ?? null)
      .all<Row>();
    return c.json({ demonstrations: results.map(fromRow) }, 200);
  })
  .openapi(createDemonstrationRoute, async (c) => c.json(await insert(database(c.env), c.req.valid('json'), runScope(c)), 201))
  .openapi(importRoute, async (c) => {
    const { benchmark, text: fileText } = c.req.valid('json');
    let parsed;
    try {
      parsed = parseProcess(fileText, `${benchmark}/import`);
    } catch (err) {
      if (err instanceof ProcessParseError) throw new HttpError(400, 'invalid_process', err.message.replace(/^[^:]*\/import:/, 'line '));
      throw err;
    }
    const input = demonstrationInputSchema.parse({
      benchmark,
      question: parsed.question,
      steps: parsed.steps.map((s) => ({ ...s, rating: null })),
      finalThought: parsed.finalThought,
      finalAnswer: parsed.finalAnswer,
    });
    return c.json(await insert(database(c.env), input, runScope(c)), 201);
  })
  .openapi(getRoute, async (c) => c.json(await getOne(database(c.env), c.req.valid('param').id, runScope(c)), 200))
  .openapi(replaceRoute, async (c) => {
    const db = database(c.env);
    const input = c.req.valid('json');
    assertRenders(input);
    const before = await getOne(db, c.req.valid('param').id, runScope(c));
    const updatedAt = Math.max(Date.now(), before.updatedAt + 1);
    await db
      .prepare('UPDATE demonstrations SET benchmark = ?, question = ?, steps = ?, final_thought = ?, final_answer = ?, updated_at = ? WHERE id = ?')
      .bind(input.benchmark, input.question, JSON.stringify(input.steps), input.finalThought, input.finalAnswer, updatedAt, before.id)
      .run();
    return c.json({ ...input, id: before.id, createdAt: before.createdAt, updatedAt }, 200);
  })
  .openapi(deleteRoute, async (c) => {
    const db = database(c.env);
    const item = await getOne(db, c.req.valid('param').id, runScope(c));
    await db.prepare('DELETE FROM demonstrations WHERE id = ?').bind(item.id).run();
    return c.body(null, 204);
  })
  .openapi(exportRoute, async (c) => {
    const item = await getOne(database(c.env), c.req.valid('param').id, runScope(c));
    const file = `${processSlug(item.question)}.txt`;
    return c.text(renderProcess(item), 200, {
      'content-disposition': `attachment; filename="${file}"`,
      'x-fewshot-path': `fewshot/${item.benchmark}/${file}`,
    });
  });
