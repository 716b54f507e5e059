/**
 * Agreement between the sources whose answer a citation verified in this run's evidence (src/engine/attribution),
 * from least to most backed: no source verified, verified sources that disagree, a single source, two agree (and
 * another differs), all agree (two or more). A conflict ranks under one verified source, so `abstainBelow:
 * "one_source"` is `abstain: true`. The one order of docs/CONFIDENCE.md: the engine's threshold, the options schema
 * and the evaluation report all read it here.
 */
export const CONFIDENCE_LEVELS = ['none', 'conflict', 'one_source', 'two_agree', 'all_agree'] as const;

export type Confidence = (typeof CONFIDENCE_LEVELS)[number];

/** Where a level ranks (0 = least backed); anything that is not a level ranks with `none`. */
export const confidenceRank = (level: string | null | undefined): number => Math.max(0, CONFIDENCE_LEVELS.indexOf(level as Confidence));
