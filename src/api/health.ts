import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { loadConfig, purposeModelVar } from '../config';
import { VARIANTS } from '../engine/types';
import { BUILD_INFO } from '../generated/build-info';
import { createEvidence } from '../evidence';
import { wikimediaHosts } from '../evidence/live';
import { mediawikiBudget, WIKIMEDIA_PER_MINUTE } from '../evidence/live/wikimedia';
import type { EvidenceHealth } from '../evidence/types';
import { createLLM } from '../llm';
import { modelProblem } from '../llm/served-models';
import type { Purpose } from '../llm/types';
import { availableModes, defaultMode } from '../strategies';
import { tracingOn } from '../telemetry/run-tracing';
import { heldGates } from './held-gates';
import { healthSchema } from './response-schemas';
import { json } from './route-kit';

/**
 * `200 {ok, llm, evidence, variants, ...}` (the fixed contract keeps status 200; monitors read `ok`). `ok` is false
 * when the evidence store did not answer a trivial query in the last second, with the reason in `evidence.message`.
 * Its cost does not grow with load: that probe is shared by the checks of one second, the model list is kept 30 s, and
 * the gates' holds come from their status board (held-gates.ts), so a burst of probes answers from memory. A missing
 * model does not make the service unhealthy: the tools and the workbench work without one, and `llm.ready` says so.
 * `llm.ready` is also false, with the reason, when the model server's own list (GET /v1/models) lacks a configured name.
 */
const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'health',
  summary: 'Service health: model, evidence (the static store answers a trivial query, at most a second before; ok is false when it does not), variants, modes and whether auth is on',
  security: [],
  responses: { 200: { description: 'health; monitors read `ok`', content: json(healthSchema) } },
});

/** How old an evidence probe a health check may answer with: a burst of probes asks the store once, not once each. */
const PROBE_REFRESH_MS = 1_000;
const probes = new WeakMap<object, { at: number; result: Promise<EvidenceHealth> }>();

/** The evidence store's answer to a trivial query, at most a second old; concurrent health checks share one probe. */
const probeEvidence = (config: ReturnType<typeof loadConfig>, db: D1Database): Promise<EvidenceHealth> => {
  const now = Date.now();
  const last = probes.get(config);
  if (last && now - last.at < PROBE_REFRESH_MS) return last.result;
  const result = (async (): Promise<EvidenceHealth> => {
    try {
      const probe = createEvidence(config, { DB: db });
      return probe.health ? await probe.health() : { checked: false, message: 'this evidence kind has no health probe' };
    } catch (err) {
      return { checked: true, ready: false, message: `the evidence could not be opened: ${(err as Error).message}` };
    }
  })();
  probes.set(config, { at: now, result });
  return result;
};

export const healthRoutes = new OpenAPIHono<{ Bindings: Env }>().openapi(healthRoute, async (c) => {
  const config = loadConfig(c.env as unknown as Record<string, unknown>);
  const llm = createLLM(config, c.env);
  const evidence = await probeEvidence(config, c.env.DB);
  const [served, held] = await Promise.all([
    llm.ok
      ? modelProblem(llm.llm, [
          { name: llm.llm.model, setting: 'LLM_MODEL' },
          ...Object.entries(config.LLM_MODELS).map(([purpose, name]) => ({ name: name!, setting: purposeModelVar(purpose as Purpose) })),
        ])
      : undefined,
    // Hosts (and the model) a politeness gate holds back right now: warned, and the model not ready meanwhile.
    heldGates(config, c.env, llm.ok ? llm.llm : undefined),
  ]);
  const problem = served ?? held.model;
  const warnings = [...politenessWarnings(config), ...held.warnings];
  return c.json({
    ok: !evidence.checked || evidence.ready,
    llm: llm.ok
      ? {
          ready: !problem,
          provider: llm.llm.provider,
          model: llm.llm.model,
          ...(Object.keys(config.LLM_MODELS).length ? { byPurpose: config.LLM_MODELS } : {}),
          ...(problem ? { message: problem } : {}),
        }
      : { ready: false, provider: config.LLM_PROVIDER, message: llm.reason },
    evidence: { kind: config.EVIDENCE, ...evidence },
    embeddings: { provider: config.EMBEDDING_PROVIDER },
    variants: [...VARIANTS],
    modes: availableModes(config),
    // The mode a request of each variant runs when it names none (the UI switches to it when the variant changes).
    defaultModes: Object.fromEntries(VARIANTS.map((v) => [v, defaultMode(v, config)])) as Record<(typeof VARIANTS)[number], string>,
    // The per-run limits a request gets unless it lowers them (the UI shows progress against them).
    limits: { maxSteps: config.MAX_STEPS, maxLLMCalls: config.MAX_LLM_CALLS, maxWallMs: config.MAX_WALL_MS, maxTokens: config.MAX_TOKENS },
    auth: config.API_KEYS.length ? 'bearer' : 'open (API_KEYS is empty: local development only)',
    // package.json's version and the git commit the code was bundled from (an evaluation's manifest records both).
    version: BUILD_INFO.version,
    commit: BUILD_INFO.commit,
    // Whether runs are exported as OpenTelemetry traces (the collector itself is not named: this route is public).
    tracing: { on: tracingOn(config) },
    ...(warnings.length ? { warnings } : {}),
  }, 200);
});

/** What a deploy sending live evidence requests to Wikimedia's own services should fix (docs/EVIDENCE.md, "Politely"). */
const politenessWarnings = (config: ReturnType<typeof loadConfig>): string[] => {
  if (config.EVIDENCE !== 'live') return [];
  const hosts = wikimediaHosts(config);
  if (!hosts.length) return [];
  const warnings: string[] = [];
  if (!config.WIKIMEDIA_CONTACT) {
    warnings.push(
      `live evidence goes to ${hosts.join(', ')} without a contact in its User-Agent: set WIKIMEDIA_CONTACT to an e-mail address or URL where Wikimedia can reach you (their User-Agent policy; clients without one may be blocked)${budgetNote(config)}`,
    );
  }
  if (config.POLITENESS === 'off') {
    warnings.push(`POLITENESS=off sends to ${hosts.join(', ')} without the shared politeness gate: clients that exceed the query service's limits or ignore its Retry-After get banned`);
  }
  return warnings;
};

/** What the missing contact costs: Wikimedia's per-minute limit for a client known only by its IP, and the gate's share of it. */
const budgetNote = (config: ReturnType<typeof loadConfig>): string => {
  const budget = mediawikiBudget(config);
  return budget?.source === 'ip'
    ? `, and Wikimedia allows such a client about ${WIKIMEDIA_PER_MINUTE.ip} API requests a minute, so the gate sends at most ${budget.perMinute} a minute to ${budget.hosts.join(' and ')} (${WIKIMEDIA_PER_MINUTE.contact} with a contact)`
    : '';
};
