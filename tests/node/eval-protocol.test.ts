import { describe, expect, it } from 'vitest';
import { seededSample } from '../../src/eval/sample';

describe('--sample N --seed S', () => {
  const items = Array.from({ length: 500 }, (_, i) => `q${i}`);
  it('draws the same N questions for the same seed, in file order, and others for another seed', () => {
    const a = seededSample(items, 200, 7);
    expect(a).toHaveLength(200);
    expect(new Set(a).size).toBe(200);
    expect(seededSample(items, 200, 7)).toEqual(a);
    expect(a.map((q) => Number(q.slice(1)))).toEqual([...a.map((q) => Number(q.slice(1)))].sort((x, y) => x - y));
    expect(seededSample(items, 200, 8)).not.toEqual(a);
    expect(seededSample(items.slice(0, 5), 200, 7)).toHaveLength(5);
  });
});
