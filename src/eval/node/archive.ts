import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { CAPS, readCapped } from './input-files';

/**
 * Evidence archives for a whole evaluation (docs/ARCHIVE.md): `--record` merges every run's archive into one file,
 * each request once; `--replay` uploads such a file and names it in every run's options.
 */

const FORMAT = 'humaniq-evidence-archive';
const VERSION = 1;

const authHeaders = (apiKey?: string): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {});

export interface RecordedArchive {
  file: string;
  runs: number;
  records: number;
  bytes: number;
  /** SHA-256 of the file's bytes: the manifest names the archive by it. */
  sha256: string;
  /** Runs whose evidence could not be fetched (the file lacks their records). */
  failed: number;
}

/** Fetches each run's evidence and writes one archive with every distinct request (the first response wins). */
export const recordArchive = async (o: { url: string; runIds: string[]; file: string; apiKey?: string }): Promise<RecordedArchive> => {
  const lines = new Map<string, string>();
  let failed = 0;
  for (const runId of o.runIds) {
    const res = await fetch(`${o.url}/v1/runs/${runId}/evidence`, { headers: authHeaders(o.apiKey) }).catch(() => null);
    if (!res?.ok) {
      failed++;
      continue;
    }
    const [, ...records] = (await res.text()).split('\n').filter((l) => l.trim());
    for (const line of records) {
      const key = (JSON.parse(line) as { key: string }).key;
      if (!lines.has(key)) lines.set(key, line);
    }
  }
  const header = JSON.stringify({ format: FORMAT, version: VERSION, records: lines.size, createdAt: new Date().toISOString(), runs: o.runIds });
  const text = `${[header, ...lines.values()].join('\n')}\n`;
  writeFileSync(o.file, text);
  const sha256 = createHash('sha256').update(text).digest('hex');
  return { file: o.file, runs: o.runIds.length, records: lines.size, bytes: Buffer.byteLength(text), sha256, failed };
};

/** Uploads an archive file; returns its id for options.evidence.replay. */
export const uploadArchive = async (o: { url: string; file: string; apiKey?: string }): Promise<{ archiveId: string; records: number }> => {
  const res = await fetch(`${o.url}/v1/archives`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', ...authHeaders(o.apiKey) },
    body: readCapped(o.file, CAPS.data, 'archive'),
  });
  const body = (await res.json().catch(() => ({}))) as { archiveId?: string; records?: number; error?: { message?: string } };
  if (!res.ok || !body.archiveId) throw new Error(`uploading ${o.file} failed: ${res.status} ${body.error?.message ?? ''}`.trim());
  return { archiveId: body.archiveId, records: body.records ?? 0 };
};

/** Run ids and replay misses of the predictions of these items. */
export const runsOf = (predictionsFile: string, ids: Set<string>): { runIds: string[]; misses: number } => {
  const runIds: string[] = [];
  let misses = 0;
  for (const line of readCapped(predictionsFile, CAPS.predictions, 'predictions file').toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    const p = JSON.parse(line) as { id?: string; runId?: string; usage?: { replayMisses?: number } };
    if (!p.id || !ids.has(p.id)) continue;
    if (p.runId) runIds.push(p.runId);
    misses += p.usage?.replayMisses ?? 0;
  }
  return { runIds: [...new Set(runIds)], misses };
};
