// @module-tag slow
/// <reference types="node" />
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBenchmark } from '../../src/eval/loaders/index';
import { prepareContexts } from '../../src/eval/node/contexts';
import { runEvaluation } from '../../src/eval/node/evaluate';
import { readBenchmarkText } from '../../src/eval/node/read-text';
import { startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub } from '../support/openai-stub.mjs';
import { dataPath, needsData } from '../support/benchmark-data';

/**
 * MultiModalQA image questions through `npm run dev` with the OpenAI-compatible stub and LLM_MODEL_VISION set:
 * program mode's image reads reach that model as `image_url` parts, and the eval report counts them. (The gold
 * rehearsal of the same fixture is in eval-rehearsal.test.ts.)
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const QUESTIONS = dataPath('mmqa/MMQA_dev_first300.jsonl.gz');
const FIXTURE = join(ROOT, 'tests/fixtures/mmqa');

describe.skipIf(!existsSync(QUESTIONS))(needsData('MMQA image questions with a vision model, through the real service'), () => {
  let stub: { url: string; requests: { purpose: string; body: any }[]; setScript: (s: unknown) => void; close: () => Promise<void> };
  let dev: DevServer | undefined;
  const dirs: string[] = [];
  const outDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'mmqa-vision-'));
    dirs.push(d);
    return d;
  };
  const prepared = () => prepareContexts('mmqa', loadBenchmark('mmqa', readBenchmarkText(QUESTIONS)), { mmqaDir: FIXTURE });

  beforeAll(async () => {
    stub = await startStub({ port: 0 });
    dev = await startDev({
      vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'gold-stub', LLM_MODEL_VISION: 'vision-stub', LLM_MAX_RETRIES: '0', RATE_LIMIT_PER_MINUTE: '1000000' },
    });
  }, 150_000);

  afterAll(async () => {
    await dev?.stop();
    await stub?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('image reads go to LLM_MODEL_VISION with the image as an image_url part, and the report counts them', async () => {
    const { items, contextFor } = prepared();
    const imageItems = items.filter((i) => i.gold.kind === 'mmqa' && i.gold.modalities?.includes('image'));
    expect(imageItems).toHaveLength(2);
    const program = "```javascript\nfunction solve(table) {\n  const film = table.rows.find((r) => r['Title'].text === 'Slumdog Millionaire');\n  return extract_info(film['Title'], 'what floats around the two people on the poster');\n}\n```";
    stub.requests.length = 0;
    stub.setScript({
      byQuestion: Object.fromEntries(imageItems.map((i) => [i.question, { simplify: [i.question], code: [program] }])),
      vision: ['confetti'],
    });
    const summary = await runEvaluation({ benchmark: 'mmqa', items: imageItems, url: dev!.url, outDir: outDir(), contextFor });
    expect(summary.errors).toBe(0);
    expect(summary.metrics).toMatchObject({ em: 100, image_questions: 2, image_read: 2 });
    const reads = stub.requests.filter((r) => r.purpose === 'vision');
    expect(reads).toHaveLength(2);
    for (const read of reads) {
      expect(read.body.model).toBe('vision-stub');
      const parts = read.body.messages.at(-1).content;
      expect(parts).toContainEqual({ type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } });
    }
    // Every other request stayed on the default model.
    expect(stub.requests.filter((r) => r.purpose !== 'vision').every((r) => r.body.model === 'gold-stub')).toBe(true);
  }, 120_000);
});
