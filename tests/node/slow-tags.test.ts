import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm run test:quick` leaves out the files tagged `// @module-tag slow` on their first line (docs/DEVELOPING.md,
 * "Tests"). A file that starts `npm run dev` and forgets the tag would make the edit loop slow again without a word,
 * so the rule is checked here rather than left to memory.
 */
const DIR = join(import.meta.dirname);
const starts = /\b(?:startDev|devOnStub)\(/;

describe('slow test files carry the slow tag', () => {
  it('every Node test file that starts npm run dev is tagged // @module-tag slow on its first line', () => {
    const untagged = readdirSync(DIR)
      .filter((f) => f.endsWith('.test.ts'))
      .filter((f) => {
        const text = readFileSync(join(DIR, f), 'utf8');
        return starts.test(text) && !text.startsWith('// @module-tag slow');
      });
    expect(untagged).toEqual([]);
  });
});
