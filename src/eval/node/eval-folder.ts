/// <reference types="node" />
import { join } from 'node:path';
import * as z from 'zod';
import type { EvalManifest } from '../manifest';
import { BENCHMARKS, type Benchmark } from '../types';
import { CAPS, InputRefusal, readJsonFile } from './input-files';

/**
 * An evaluation's output folder as `compare` and the table read it: its metrics.json, checked field by field before
 * anything it names is opened. A hand-edited or foreign file is refused naming the field, never with a stack trace.
 */

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, { message: 'a SHA-256 in hex' });
const path = z.string().min(1).max(4096);

const manifestSchema = z.looseObject({
  data: z.object({ path, sha256, questions: z.number().int().nonnegative() }),
  reference: z.object({ path, sha256 }).nullable().optional(),
  asked: z.object({ n: z.number().int().nonnegative(), ids: z.array(z.string().max(4096)).max(5_000_000) }),
  language: z.string().max(35).nullable().optional(),
  service: z.looseObject({ url: z.string().max(4096) }),
  rehearsal: z.boolean().optional(),
});

const folderSchema = z.looseObject({
  benchmark: z.enum(BENCHMARKS),
  rehearsal: z.boolean().optional(),
  manifest: manifestSchema,
  // Epoch folders are subfolders by these exact names: a path from the file is never followed elsewhere.
  epochs: z.looseObject({ k: z.number().int().min(1).max(100), folders: z.array(z.string().regex(/^epoch-\d{1,3}$/)).min(1).max(100) }).optional(),
});

export interface EvalFolder {
  dir: string;
  benchmark: Benchmark;
  manifest: EvalManifest;
  /** The whole metrics.json (the metric families compare their own fields). */
  doc: Record<string, unknown>;
  rehearsal: boolean;
  /** The folders holding predictions: the evaluation's own, or one per epoch. */
  predictionDirs: string[];
}

const describe = (issues: z.core.$ZodIssue[]) =>
  issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(the document)'}: ${i.message}`)
    .join('; ');

/** Reads and checks `<dir>/metrics.json`. */
export const readEvalFolder = (dir: string): EvalFolder => {
  const file = join(dir, 'metrics.json');
  let raw: unknown;
  try {
    raw = readJsonFile(file, CAPS.json, 'metrics.json');
  } catch (err) {
    if (err instanceof InputRefusal && /no such file/.test(err.message)) throw new InputRefusal(`${dir} holds no metrics.json: give the output folders of evaluations`);
    throw err;
  }
  if (raw && typeof raw === 'object' && !('manifest' in raw)) throw new InputRefusal(`${file} has no manifest (written before manifests existed): run that evaluation again`);
  const parsed = folderSchema.safeParse(raw);
  if (!parsed.success) throw new InputRefusal(`${file} is not an evaluation's metrics.json: ${describe(parsed.error.issues)}`);
  const doc = parsed.data;
  return {
    dir,
    benchmark: doc.benchmark,
    manifest: doc.manifest as unknown as EvalManifest,
    doc: doc as Record<string, unknown>,
    rehearsal: doc.rehearsal === true || doc.manifest.rehearsal === true,
    predictionDirs: doc.epochs ? doc.epochs.folders.map((f) => join(dir, f)) : [dir],
  };
};
