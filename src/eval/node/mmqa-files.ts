/// <reference types="node" />
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, normalize, sep } from 'node:path';
import { mmqaContext, type MMQAImage, type MMQATable, type MMQAText } from '../contexts/mmqa';
import type { TableContext } from '../contexts/types';
import type { EvalItem, MMQADocs } from '../types';
import { readBenchmarkText } from './read-text';

/** The service takes at most 4 MB per image and 16 MB per request: larger images are left out, and a context's images stop at a budget. */
export const MAX_IMAGE_BYTES = 2_500_000;
export const MAX_CONTEXT_IMAGE_BYTES = 9_000_000;

const MIME: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.gif': 'image/gif', '.webp': 'image/webp' };

/** `MMQA_tables.jsonl`, `MMQA_tables.jsonl.gz` or the longer released names that end the same way. */
const findFile = (dir: string, kind: 'tables' | 'texts' | 'images'): string | undefined => {
  const names = readdirSync(dir).filter((n) => n.includes(`MMQA_${kind}.jsonl`)).sort();
  return names.length ? join(dir, names[0]) : undefined;
};

/** Keeps only the lines whose `id` is wanted, so the full released files (hundreds of MB) are never held whole as objects. */
const readWanted = <T extends { id: string }>(path: string | undefined, wanted: ReadonlySet<string>): Map<string, T> => {
  const out = new Map<string, T>();
  if (!path) return out;
  const text = readBenchmarkText(path);
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? text.length : end);
    start = end < 0 ? text.length : end + 1;
    const id = /"id"\s*:\s*"([^"]+)"/.exec(line)?.[1];
    if (!id || !wanted.has(id)) continue;
    const record = JSON.parse(line) as T;
    if (record.id === id) out.set(id, record);
  }
  return out;
};

const docsOf = (item: EvalItem): MMQADocs | undefined => (item.gold.kind === 'mmqa' ? item.gold.docs : undefined);

/** Why an item cannot be asked from these files, or undefined when it can. */
export type MissingReason = 'table' | 'documents';

/**
 * Reads the MultiModalQA context files of a folder for the given questions: `MMQA_tables.jsonl`, `MMQA_texts.jsonl`,
 * `MMQA_images.jsonl` (plain or .gz) and the image files under `final_dataset_images/` (or the folder itself).
 * Node only. Images are sent as `data:` URLs, so the service never fetches anything.
 */
export const mmqaFiles = (dir: string, items: readonly EvalItem[]) => {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--mmqa-dir ${dir} is not a folder`);
  if (!findFile(dir, 'tables')) throw new Error(`${dir} has no MMQA_tables.jsonl (the MultiModalQA context files go there)`);
  const want = { tables: new Set<string>(), texts: new Set<string>(), images: new Set<string>() };
  for (const item of items) {
    const d = docsOf(item);
    if (!d) continue;
    if (d.tableId) want.tables.add(d.tableId);
    d.textIds.forEach((id) => want.texts.add(id));
    d.imageIds.forEach((id) => want.images.add(id));
  }
  const tables = readWanted<MMQATable>(findFile(dir, 'tables'), want.tables);
  const texts = readWanted<MMQAText>(findFile(dir, 'texts'), want.texts);
  const images = readWanted<MMQAImage>(findFile(dir, 'images'), want.images);
  const imageRoot = existsSync(join(dir, 'final_dataset_images')) ? join(dir, 'final_dataset_images') : dir;

  /** The image file, if it is inside the images folder, exists and is small enough to send. */
  const imageFile = (image: MMQAImage): string | undefined => {
    const rel = normalize(String(image.path ?? ''));
    if (!rel || isAbsolute(rel) || rel.split(sep).includes('..') || !MIME[extname(rel).toLowerCase()]) return undefined;
    const path = join(imageRoot, rel);
    return existsSync(path) && statSync(path).size <= MAX_IMAGE_BYTES ? path : undefined;
  };
  const dataUrl = (path: string) => `data:${MIME[extname(path).toLowerCase()]};base64,${readFileSync(path).toString('base64')}`;

  const missing = (item: EvalItem): MissingReason | undefined => {
    const d = docsOf(item);
    if (!d?.tableId || !tables.has(d.tableId)) return 'table';
    const present = (s: { id: string; part: string }) =>
      s.part === 'table' ? tables.has(s.id) : s.part === 'text' ? texts.has(s.id) : s.part === 'image' ? !!(images.get(s.id) && imageFile(images.get(s.id)!)) : true;
    return d.supporting.every(present) ? undefined : 'documents';
  };

  /** The question's program-mode context: its table, its texts, and its images (the supporting ones first, within the budget). */
  const context = (item: EvalItem): TableContext | undefined => {
    const d = docsOf(item);
    const table = d?.tableId ? tables.get(d.tableId) : undefined;
    if (!d || !table) return undefined;
    const supporting = new Set(d.supporting.map((s) => s.id));
    const ordered = [...d.imageIds].sort((a, b) => Number(supporting.has(b)) - Number(supporting.has(a)));
    const picked: { image: MMQAImage; url: string }[] = [];
    let bytes = 0;
    for (const id of ordered) {
      const image = images.get(id);
      const path = image && imageFile(image);
      if (!image || !path) continue;
      const size = statSync(path).size;
      if (bytes + size > MAX_CONTEXT_IMAGE_BYTES) continue;
      bytes += size;
      picked.push({ image, url: dataUrl(path) });
    }
    const docs = d.textIds.map((id) => texts.get(id)).filter((t): t is MMQAText => !!t);
    return mmqaContext(table, docs, picked);
  };

  return { missing, context, counts: { tables: tables.size, texts: texts.size, images: images.size } };
};
