import type { EvalItem, Prediction } from '../types';

/**
 * A service answers with one text; MultiModalQA's gold is a list of spans. When the gold has several items, the
 * text is read as a list ("A, B and C"), the way a person reads it; a single-span gold keeps the text whole
 * (so "Washington, D.C." stays one answer).
 */
export const mmqaSpans = (text: string, goldCount: number): string | string[] => {
  if (goldCount < 2) return text;
  const parts = text.split(/\s*[,;]\s*(?:and\s+)?|\s+and\s+/i).map((s) => s.trim()).filter(Boolean);
  return parts.length > 1 ? parts : text;
};

const needsImage = (item: EvalItem) => item.gold.kind === 'mmqa' && (item.gold.modalities ?? []).includes('image');

const visionCalls = (p: Prediction | undefined): number => {
  const byPurpose = (p?.usage as { byPurpose?: Record<string, { calls?: number }> } | undefined)?.byPurpose;
  return Number(byPurpose?.vision?.calls ?? 0);
};

/**
 * How many questions need an image (gold `metadata.modalities`) and in how many of those a vision model read one
 * (the run's `usage.byPurpose.vision`). Without LLM_MODEL_VISION the second number is 0 and the report says why.
 */
export const mmqaImageCounts = (items: readonly EvalItem[], predictions: Map<string, Prediction>) => {
  const withImage = items.filter(needsImage);
  const read = withImage.filter((i) => visionCalls(predictions.get(i.id)) > 0).length;
  const note =
    withImage.length === 0
      ? undefined
      : read === 0
        ? `${withImage.length} of ${items.length} questions need an image; no image was read (no vision model: set LLM_MODEL_VISION on the service), so those answers rest on text and table alone`
        : `${withImage.length} of ${items.length} questions need an image; a vision model read images in ${read} of them`;
  return { imageQuestions: withImage.length, imageRead: read, note };
};
