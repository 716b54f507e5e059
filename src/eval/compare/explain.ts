/**
 * Which differences between two evaluations' manifests could explain a delta. Every difference is named (the
 * comparison lists them all); these are the ones warned about: the service's settings and code, the model, the data's
 * selection, the judge, and the limits the runs got (even when the options lowered them on purpose: a limit cuts runs
 * short, whichever system it hits). Differences that every two evaluations have (ids, times, tokens) or that a
 * comparison of systems makes on purpose (the mode, the options) are not.
 */

/** Differ between any two evaluations; say nothing about the systems. */
const INCIDENTAL = [
  /^evalId$/, /^startedAt$/, /^endedAt$/, /^tokens(\.|$)/, /^cost(\.|$)/, /^models(\.|$)/, /^asked(\.|$)/, /^service\.url$/,
  /^concurrency$/, /^evalCli(\.|$)/, /^evidenceArchive(\.|$)/, /^epoch(\.|$)/, /^epochs\.seeds$/, /^data\.path$/, /^reference\.path$/,
];

/** What a comparison of systems varies on purpose: the mode and the options, but not the limits or model they resolve to. */
const DESIGN = [/^mode$/, /^recipe$/, /^options(\.|$)/, /^resolvedOptions\.(?!limits(\.|$)|model$|evidenceReplay$)/];

export const explains = (field: string): boolean => !INCIDENTAL.some((r) => r.test(field)) && !DESIGN.some((r) => r.test(field));

const short = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'none';
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
};

/** One warning per difference that could explain the delta. */
export const explainingDifferences = (diff: readonly { field: string; a: unknown; b: unknown }[]): string[] =>
  diff.filter((d) => explains(d.field)).map((d) => `${d.field} differs (A ${short(d.a)}, B ${short(d.b)}): it could explain the delta`);
