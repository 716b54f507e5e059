import { createRoute } from '@hono/zod-openapi';
import { loadConfig } from '../config';
import { createArchive, type ArchiveBindings } from '../storage/archives';
import { OPEN_OWNER } from '../storage/run-index';
import { ArchiveTooLarge, readArchiveStream } from '../evidence/archive-reader';
import { ArchiveFormatError } from '../evidence/recording';
import { runScope } from './auth';
import { HttpError } from './errors';
import { archiveCreatedSchema } from './response-schemas';
import { apiRoutes, errors, json } from './route-kit';

/** One record line at most (a page with its sections and tables is far smaller; docs/EVIDENCE.md, "Reproducible runs", sizes a 200-question archive at a few MB); the whole file is ARCHIVE_MAX_BYTES. */
export const MAX_ARCHIVE_LINE_CHARS = 4 * 1024 * 1024;
/** A 200-question evaluation records a few thousand distinct requests. */
export const MAX_ARCHIVE_RECORDS = 20_000;

/** JSONL types only: like the JSON routes, no type a browser may send cross-origin without a preflight. */
const ARCHIVE_MEDIA_TYPE = /^application\/(x-ndjson|jsonl|x-jsonlines|json)$/;

const uploadRoute = createRoute({
  method: 'post',
  path: '/v1/archives',
  operationId: 'uploadArchive',
  summary: 'Upload an evidence archive to replay runs from',
  description:
    'The body is an archive in the JSONL format of GET /v1/runs/{id}/evidence (Content-Type application/x-ndjson; at most ARCHIVE_MAX_BYTES, ' +
    '16 MiB by default, 4 MiB per line and 20,000 distinct records). A repeated request keeps its first response. The archive belongs to the ' +
    "caller's key: use the returned id as `options.evidence.replay` of that key's runs, or as the deploy-wide EVIDENCE_REPLAY.",
  // Read and checked by the handler as a stream: a JSONL archive is no JSON document for a validator to parse.
  request: { body: { required: true, content: { 'application/x-ndjson': { schema: { type: 'string' } } } } },
  responses: { 201: { description: 'stored', content: json(archiveCreatedSchema) }, ...errors(400, 413, 415) },
});

/** POST /v1/archives: stores an evidence archive (docs/ARCHIVE.md) that the caller's runs can replay. */
export const archiveRoutes = apiRoutes().openapi(uploadRoute, async (c) => {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!ARCHIVE_MEDIA_TYPE.test(type)) {
    throw new HttpError(415, 'unsupported_media_type', `send the archive as JSONL with "Content-Type: application/x-ndjson" (got ${type ? JSON.stringify(type.slice(0, 100)) : 'none'})`);
  }
  const maxBytes = loadConfig(c.env as unknown as Record<string, unknown>).ARCHIVE_MAX_BYTES;
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > maxBytes) throw new HttpError(413, 'payload_too_large', `the archive is ${declared} bytes; the limit is ${maxBytes} bytes (ARCHIVE_MAX_BYTES)`);
  const archive = await createArchive(c.env as unknown as ArchiveBindings, runScope(c) ?? OPEN_OWNER);
  let records: number;
  try {
    const limits = { maxBytes, maxLineChars: Math.min(MAX_ARCHIVE_LINE_CHARS, maxBytes), maxRecords: MAX_ARCHIVE_RECORDS };
    ({ records } = await readArchiveStream(c.req.raw.body, limits, ({ storeKey, record }) => archive.add(storeKey, JSON.stringify(record.response))));
    await archive.commit(records);
  } catch (err) {
    await archive.abort().catch(() => {});
    if (err instanceof ArchiveFormatError) throw new HttpError(400, 'invalid_archive', err.message);
    if (err instanceof ArchiveTooLarge) throw new HttpError(413, 'payload_too_large', `${err.message} (limits: docs/ARCHIVE.md)`);
    throw err;
  }
  return c.json({ archiveId: archive.archiveId, records }, 201);
});
