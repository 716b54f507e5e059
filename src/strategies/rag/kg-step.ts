import * as z from 'zod';
import { structuredCall } from '../../engine/structured-step';
import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import type { RunContext, StepOutcome } from '../../engine/types';
import { requestKey } from '../../evidence/recording';
import { checkCall, describeEndpoints, parseCalls } from './kg/client';
import { entitiesJsonIn, kgEntitiesSchema, kgEntitiesShape, presentEntities } from './kg/entities';
import { planKgCalls, runPlan, type RulePlan } from './kg/rules';
import entitiesPrompt from './prompts/kg-entities.txt';
import prompt from './prompts/kg.txt';
import type { RagOptions } from './options';
import type { RagState } from './state';

const MAX_CALLS = 3;

/** The entity extractor's reply: the fields the rules read, validated by the one entities schema whichever way it came. */
const ENTITIES_REPLY = { name: 'question_entities', schema: kgEntitiesSchema, sent: kgEntitiesShape, fromText: entitiesJsonIn };

/**
 * The API calls the model chose: `{calls: [...]}` as a reply schema (a JSON reply must be an object), the bare array the
 * text prompt asks for otherwise. Each call is then checked against its endpoint's own schema (checkCall).
 */
const CALLS_REPLY = {
  name: 'knowledge_api_calls',
  schema: z.object({ calls: z.array(z.unknown()).max(20) }),
  sent: z.object({
    calls: z.array(z.object({ endpoint: z.string(), args: z.record(z.string(), z.unknown()) })).max(MAX_CALLS).meta({ description: 'at most three calls; none when no endpoint helps' }),
  }),
  fromText: (text: string) => ({ calls: parseCalls(text) }),
};

const describePlan = (plan: RulePlan) =>
  plan.map((p) => ('endpoint' in p ? `call ${p.endpoint} ${JSON.stringify(p.args)}` : p.resolve === 'ticker'
    ? `resolve the ticker of ${JSON.stringify(p.company)}, then ${p.then.join(', ')}`
    : `search ${JSON.stringify(p.name)}, then open/get_entity`));

/**
 * KG module, part 1 (the paper's final design): the model extracts entities as JSON; rules choose the endpoints.
 * With `options.kgMode: "calls"` the model writes the API calls itself (function calling, which the paper dropped).
 */
export const kgChooseStep = async (state: RagState, ctx: RunContext, o: RagOptions): Promise<StepOutcome<RagState>> => {
  if (o.kgMode === 'rules' && ctx.config.CRAG_API_URL) return kgEntitiesStep(state, ctx);
  return kgCallsStep(state, ctx);
};

const kgEntitiesStep = async (state: RagState, ctx: RunContext): Promise<StepOutcome<RagState>> => {
  const question = ctx.request.question;
  const domain = state.attribute?.domain ?? 'open';
  const queryTime = (ctx.request.context?.queryTime as string | undefined) ?? 'unknown';
  const started = Date.now();
  const reply = await structuredCall(ctx, {
    purpose: 'kg',
    messages: [
      { role: 'system', content: `${entitiesPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: `Domain: ${domain}\nQuery time: ${oneLine(String(queryTime)).slice(0, 60)}\n${fence('QUESTION', question)}` },
    ],
    maxTokens: 200,
  }, ENTITIES_REPLY);
  const entities = reply.value ? presentEntities(reply.value) : {};
  const plan = planKgCalls(domain, entities, question);
  return {
    state: { ...state, kgEntities: entities, phase: plan.length ? 'kg_fetch' : 'reasoning' },
    events: [
      { type: 'action', data: { tool: 'kg', input: { question, domain, mode: 'entities' } } },
      {
        type: 'observation',
        data: {
          tool: 'kg',
          output: `entities ${JSON.stringify(entities)}\n${plan.length ? describePlan(plan).join('\n') : 'no rule matches these entities; no knowledge-API call'}`,
          ms: Date.now() - started,
          detail: { entities },
        },
      },
    ],
  };
};

/** KG module, part 1 as function calling: the model picks API calls as JSON; each is validated against its endpoint schema here. */
const kgCallsStep = async (state: RagState, ctx: RunContext): Promise<StepOutcome<RagState>> => {
  const base = ctx.config.CRAG_API_URL;
  const question = ctx.request.question;
  if (!base) {
    return {
      state: { ...state, phase: 'reasoning' },
      events: [
        { type: 'action', data: { tool: 'kg', input: { question } } },
        { type: 'observation', data: { tool: 'kg', output: 'skipped: no knowledge API configured (set CRAG_API_URL to a CRAG mock-KG server)', ms: 0 } },
      ],
    };
  }
  const domain = state.attribute?.domain;
  const started = Date.now();
  const reply = await structuredCall(ctx, {
    purpose: 'kg',
    messages: [
      { role: 'system', content: `${prompt.replace('{{endpoints}}', describeEndpoints(domain)).trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: `${fence('QUESTION', question)}\nQuery time: ${oneLine((ctx.request.context?.queryTime as string | undefined) ?? 'unknown')}` },
    ],
    maxTokens: 300,
  }, CALLS_REPLY);
  const checked = (reply.value?.calls ?? []).slice(0, MAX_CALLS).map(checkCall);
  const calls = checked.flatMap((c) => (c.ok ? [c.call] : []));
  const rejected = checked.flatMap((c) => (c.ok ? [] : [c.error]));
  const lines = [
    ...calls.map((c) => `call ${c.endpoint} ${JSON.stringify(c.args)}`),
    ...rejected.map((e) => `rejected (not sent): ${e}`),
  ];
  return {
    state: { ...state, kgCalls: calls, phase: calls.length ? 'kg_fetch' : 'reasoning' },
    events: [
      { type: 'action', data: { tool: 'kg', input: { question, domain } } },
      {
        type: 'observation',
        data: { tool: 'kg', output: lines.length ? lines.join('\n') : 'no knowledge-API call chosen', ms: Date.now() - started, error: calls.length === 0 && rejected.length > 0 },
      },
    ],
  };
};

/** KG module, part 2: the validated calls go out; results are trimmed into references. */
export const kgFetchStep = async (state: RagState, ctx: RunContext): Promise<StepOutcome<RagState>> => {
  const started = Date.now();
  if (state.kgEntities) {
    const plan = planKgCalls(state.attribute?.domain ?? 'open', state.kgEntities, ctx.request.question);
    const results = await runPlan(ctx.kg(), plan, { signal: ctx.signal });
    const ok = results.filter((r) => !r.error && r.result !== 'null');
    const output = results
      .map((r) => `${r.endpoint} ${JSON.stringify(r.args)}: ${r.error ? `failed (${r.error})` : r.result.slice(0, 300)}`)
      .join('\n');
    return {
      state: {
        ...state,
        kgResults: ok.map(({ endpoint, args, result }) => ({ endpoint: `${endpoint} ${JSON.stringify(args)}`, result, key: requestKey({ source: 'kg', endpoint, args }) })),
        phase: 'reasoning',
      },
      events: [
        { type: 'action', data: { tool: 'kg', input: { plan: describePlan(plan) } } },
        { type: 'observation', data: { tool: 'kg', output: output || 'no call was sent', ms: Date.now() - started, error: ok.length === 0 } },
      ],
    };
  }
  const results = await Promise.all(
    state.kgCalls.map(async (call) => {
      try {
        return { endpoint: call.endpoint, result: await ctx.kg().call(call), key: requestKey({ source: 'kg', endpoint: call.endpoint, args: call.args }) };
      } catch (err) {
        return { endpoint: call.endpoint, result: '', error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  const ok = results.filter((r) => !('error' in r) && r.result !== 'null');
  const output = results.map((r) => ('error' in r ? `${r.endpoint}: failed (${r.error})` : `${r.endpoint}: ${r.result.slice(0, 300)}`)).join('\n');
  return {
    state: { ...state, kgResults: ok.map((r) => ({ endpoint: r.endpoint, result: r.result, ...('key' in r ? { key: r.key } : {}) })), phase: 'reasoning' },
    events: [
      { type: 'action', data: { tool: 'kg', input: { calls: state.kgCalls } } },
      { type: 'observation', data: { tool: 'kg', output, ms: Date.now() - started, error: ok.length === 0 } },
    ],
  };
};
