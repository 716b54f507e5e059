import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Keeps the Worker upload lean (see `npm run bench:bundle`): `import { z } from 'zod'` makes esbuild keep zod's whole
 * namespace object, locales included (about 70 KiB gzip); `import * as z` lets it drop what is unused.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'generated' || name.endsWith('.d.ts')) return [];
    return statSync(p).isDirectory() ? sources(p) : /\.(ts|mjs|js)$/.test(name) ? [p] : [];
  });

describe('Worker bundle hygiene', () => {
  it('imports zod as a namespace everywhere in Worker code', () => {
    const offenders = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'durable-objects'))]
      .filter((f) => /import\s*(\{[^}]*\bz\b[^}]*\}|\w+)\s*from\s*'(zod|@hono\/zod-openapi)'/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    // In Worker builds the `z` (and default export) of 'zod' holds only ZodType (src/zod-bundle.ts).
    expect(offenders, "use `import * as z from 'zod'`").toEqual([]);
  });
});
