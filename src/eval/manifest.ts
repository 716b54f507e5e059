import type { ServiceInfo } from './runner/preflight';
import type { EvalItem, Prediction } from './types';

/** What the CLI knows before the questions: the service, the data file, the prices. */
export interface ManifestInputs {
  service?: ServiceInfo;
  data?: { path: string; sha256: string; questions: number };
  reference?: { path: string; sha256: string };
  limit?: number | null;
  evalCli?: { version: string; commit: string };
  /** Per million tokens, in whatever currency the caller priced in. */
  prices?: { in: number; out: number };
  rehearsal?: boolean;
  /** The service's own settings (GET /v1/config) and the options a run of this evaluation resolves to. */
  settings?: ServiceSettingsDoc | null;
  resolvedOptions?: Record<string, unknown> | null;
  /** `--record`: the evidence archive written beside the outputs, by name and SHA-256. */
  evidenceArchive?: EvidenceArchiveRef | null;
  /** `--epochs`: this evaluation is epoch `epoch` of `k`, its runs sampled with `seed`. */
  epoch?: { k: number; epoch: number; seed: number } | null;
}

/** GET /v1/config as the service answered it (its `resolved` part is recorded as `resolvedOptions`). */
export type ServiceSettingsDoc = Record<string, unknown>;

export interface EvidenceArchiveRef {
  file: string;
  sha256: string;
  records: number;
  bytes: number;
  runs: number;
  /** Runs whose evidence could not be fetched. */
  failed: number;
}

export interface PurposeTokens {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** Everything needed to say what an evaluation measured (docs/EVAL.md, "The manifest"). */
export interface EvalManifest {
  evalId: string | null;
  service: { url: string; version: string; commit: string; configuredModel: ServiceInfo['llm'] | null; settings: ServiceSettingsDoc | null };
  /** The models that answered, per purpose, from the runs' own usage (not the configuration). */
  models: Record<string, string[]>;
  variant: string | null;
  mode: string | null;
  recipe: string | null;
  /** Every option sent with every question (the benchmark's own defaults included). */
  options: Record<string, unknown> | null;
  /** Every option of the runs once the service applied its defaults (GET /v1/config?variant=&mode=&options=). */
  resolvedOptions: Record<string, unknown> | null;
  data: { path: string; sha256: string; questions: number } | null;
  reference: { path: string; sha256: string } | null;
  language: string | null;
  sample: { n: number; seed: number } | null;
  limit: number | null;
  asked: { n: number; ids: string[] };
  evalCli: { version: string; commit: string } | null;
  startedAt: string;
  endedAt: string;
  concurrency: number;
  judge: string | null;
  tokens: { byPurpose: Record<string, PurposeTokens>; promptTokens: number; completionTokens: number };
  cost: { pricePerMillionIn: number; pricePerMillionOut: number; total: number; byPurpose: Record<string, number> } | null;
  rehearsal: boolean;
  evidenceArchive: EvidenceArchiveRef | null;
  epoch: { k: number; epoch: number; seed: number } | null;
}

interface PurposeUsage {
  calls?: number;
  promptTokens?: number;
  completionTokens?: number;
  model?: string;
  models?: Record<string, number>;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Models and tokens per purpose, summed over the runs' `usage.byPurpose`. */
export const usageByPurpose = (predictions: readonly (Prediction | undefined)[]) => {
  const models: Record<string, Set<string>> = {};
  const tokens: Record<string, PurposeTokens> = {};
  for (const p of predictions) {
    const byPurpose = (p?.usage?.byPurpose ?? {}) as Record<string, PurposeUsage>;
    for (const [purpose, u] of Object.entries(byPurpose)) {
      const names = (models[purpose] ??= new Set());
      if (u.model) names.add(u.model);
      for (const m of Object.keys(u.models ?? {})) names.add(m);
      const t = (tokens[purpose] ??= { calls: 0, promptTokens: 0, completionTokens: 0 });
      t.calls += num(u.calls);
      t.promptTokens += num(u.promptTokens);
      t.completionTokens += num(u.completionTokens);
    }
  }
  return { models: Object.fromEntries(Object.entries(models).map(([k, v]) => [k, [...v].sort()])), tokens };
};

const costOf = (t: PurposeTokens, prices: { in: number; out: number }) => (t.promptTokens * prices.in + t.completionTokens * prices.out) / 1e6;

export interface RunFacts {
  evalId?: string;
  url: string;
  variant?: string;
  mode?: string;
  options?: Record<string, unknown>;
  items: readonly EvalItem[];
  predictions: Map<string, Prediction>;
  sample?: { n: number; seed: number };
  language?: string;
  startedAt: string;
  endedAt: string;
  concurrency: number;
  judge?: string;
}

/** The manifest of a finished evaluation: the CLI's inputs plus what the runs themselves reported. */
export const buildManifest = (inputs: ManifestInputs, f: RunFacts): EvalManifest => {
  const { models, tokens } = usageByPurpose(f.items.map((i) => f.predictions.get(i.id)));
  const promptTokens = Object.values(tokens).reduce((s, t) => s + t.promptTokens, 0);
  const completionTokens = Object.values(tokens).reduce((s, t) => s + t.completionTokens, 0);
  const prices = inputs.prices;
  const service = inputs.service;
  return {
    evalId: f.evalId ?? null,
    service: { url: f.url, version: service?.version ?? 'unknown', commit: service?.commit ?? 'unknown', configuredModel: service?.llm ?? null, settings: inputs.settings ?? null },
    models,
    variant: f.variant ?? null,
    mode: f.mode ?? null,
    // As the service resolved it (a mode's default recipe is "ours"), else as sent.
    recipe: typeof inputs.resolvedOptions?.recipe === 'string' ? inputs.resolvedOptions.recipe : typeof f.options?.recipe === 'string' ? f.options.recipe : null,
    options: f.options ?? null,
    resolvedOptions: inputs.resolvedOptions ?? null,
    data: inputs.data ?? null,
    reference: inputs.reference ?? null,
    language: f.language ?? null,
    sample: f.sample ?? null,
    limit: inputs.limit ?? null,
    asked: { n: f.items.length, ids: f.items.map((i) => i.id) },
    evalCli: inputs.evalCli ?? null,
    startedAt: f.startedAt,
    endedAt: f.endedAt,
    concurrency: f.concurrency,
    judge: f.judge ?? null,
    tokens: { byPurpose: tokens, promptTokens, completionTokens },
    cost: prices
      ? {
          pricePerMillionIn: prices.in,
          pricePerMillionOut: prices.out,
          total: costOf({ calls: 0, promptTokens, completionTokens }, prices),
          byPurpose: Object.fromEntries(Object.entries(tokens).map(([k, t]) => [k, costOf(t, prices)])),
        }
      : null,
    rehearsal: inputs.rehearsal === true,
    evidenceArchive: inputs.evidenceArchive ?? null,
    epoch: inputs.epoch ?? null,
  };
};
