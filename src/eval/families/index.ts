import { runsFamily } from './runs';
import type { FamilyInput, FamilyResult, MetricFamily } from './types';

export type { FamilyInput, FamilyResult, MetricFamily } from './types';

/**
 * Every family of figures an evaluation reports beside the benchmark's metrics, in the order they are shown. A new
 * family (e.g. citation support) is one module and one line here; metrics.json, the summary line, the report and
 * compare pick it up from this list.
 */
export const METRIC_FAMILIES: readonly MetricFamily[] = [runsFamily];

/** Every family's result for one evaluation, merged: fields, warnings, summary pieces and report sections. */
export const familyFigures = (input: FamilyInput): FamilyResult & { sections: { heading: string; html: string }[]; summaries: string[] } => {
  const results = METRIC_FAMILIES.map((f) => f.compute(input));
  return {
    fields: Object.assign({}, ...results.map((r) => r.fields)),
    warnings: results.flatMap((r) => r.warnings),
    summaries: results.flatMap((r) => (r.summary ? [r.summary] : [])),
    sections: results.flatMap((r) => (r.report ? [r.report] : [])),
  };
};

/** What every family says when two evaluations are compared. */
export const compareFamilies = (a: Record<string, unknown>, b: Record<string, unknown>): { lines: string[]; warnings: string[] } => {
  const out = METRIC_FAMILIES.map((f) => f.compare?.(a, b) ?? { lines: [], warnings: [] });
  return { lines: out.flatMap((o) => o.lines), warnings: out.flatMap((o) => o.warnings) };
};
