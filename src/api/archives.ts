import { createRoute } from '@hono/zod-openapi';
import { newArchiveId, storeArchive } from '../engine/archives';
import { ArchiveFormatError, parseArchive } from '../evidence/recording';
import { readBodyText } from './body';
import { HttpError } from './errors';
import { archiveCreatedSchema } from './response-schemas';
import { apiRoutes, errors, json } from './route-kit';

/** An archive of a 200-question evaluation is a few MB (docs/EVIDENCE.md, "Reproducible runs"); 64 MB leaves room for far more. */
export const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;
export const MAX_ARCHIVE_RECORDS = 500_000;

/** JSONL types only: like the JSON routes, no type a browser may send cross-origin without a preflight. */
const ARCHIVE_MEDIA_TYPE = /^application\/(x-ndjson|jsonl|x-jsonlines|json)$/;

const uploadRoute = createRoute({
  method: 'post',
  path: '/v1/archives',
  operationId: 'uploadArchive',
  summary: 'Upload an evidence archive to replay runs from',
  description:
    'The body is an archive in the JSONL format of GET /v1/runs/{id}/evidence (Content-Type application/x-ndjson, at most 64 MB). ' +
    'Use the returned id as `options.evidence.replay` of a run, or as the deploy-wide EVIDENCE_REPLAY.',
  // Read and checked by the handler as a capped stream: a JSONL archive is no JSON document for a validator to parse.
  request: { body: { required: true, content: { 'application/x-ndjson': { schema: { type: 'string' } } } } },
  responses: { 201: { description: 'stored', content: json(archiveCreatedSchema) }, ...errors(400, 413, 415) },
});

/** POST /v1/archives: stores an evidence archive (docs/ARCHIVE.md) that runs can replay. */
export const archiveRoutes = apiRoutes().openapi(uploadRoute, async (c) => {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!ARCHIVE_MEDIA_TYPE.test(type)) {
    throw new HttpError(415, 'unsupported_media_type', `send the archive as JSONL with "Content-Type: application/x-ndjson" (got ${type ? JSON.stringify(type.slice(0, 100)) : 'none'})`);
  }
  const { text } = await readBodyText(c, MAX_ARCHIVE_BYTES, 'the archive');
  let records: number;
  try {
    records = parseArchive(text, { maxRecords: MAX_ARCHIVE_RECORDS }).records.size;
  } catch (err) {
    if (err instanceof ArchiveFormatError) throw new HttpError(400, 'invalid_archive', err.message);
    throw err;
  }
  const archiveId = newArchiveId();
  await storeArchive(c.env as unknown as { DB: D1Database; ARCHIVES?: R2Bucket }, archiveId, text);
  return c.json({ archiveId, records }, 201);
});
