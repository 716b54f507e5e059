import { sampleIndices } from '../fewshot/prng';

/**
 * A seeded random sample of n items, kept in file order (the HQA paper scores 200 random questions per
 * benchmark). The same seed and file give the same questions on every machine.
 */
export const seededSample = <T>(items: readonly T[], n: number, seed: number): T[] =>
  sampleIndices(items.length, n, seed)
    .sort((a, b) => a - b)
    .map((i) => items[i]);
