import type { KnowledgeApi } from './crag/types';
import { bodyShapeProblem } from './replay-shapes';
import { PAIR_HASH } from './verdict-records';
import { EvidenceError, type Evidence } from './types';

/**
 * Recording and replay of the evidence a run receives (docs/ARCHIVE.md). Every call of the Evidence interface
 * (and every CRAG KG API call) is one request; its normalised form is the record's key, so the same question asked
 * again finds the same record whether the world has changed since or is unreachable.
 */

export const ARCHIVE_FORMAT = 'humaniq-evidence-archive';
export const ARCHIVE_VERSION = 1;

/**
 * What was asked: an Evidence method with its arguments, one CRAG KG API call, or a model's support verdict on one
 * question–answer–quote pair (named by its SHA-256: ./verdict-records.ts).
 */
export type RecordedRequest =
  | { source: 'evidence'; kind: 'static' | 'live'; method: EvidenceMethod; args: unknown[] }
  | { source: 'kg'; endpoint: string; args: Record<string, unknown> }
  | { source: 'verify'; pair: string };

/** What came back: a JSON body, or the error the source raised (a replayed error is raised again). */
export type RecordedResponse = { body: unknown } | { error: { code: string; message: string } };

export interface EvidenceRecord {
  key: string;
  request: RecordedRequest;
  response: RecordedResponse;
}

export interface ArchiveHeader {
  format: typeof ARCHIVE_FORMAT;
  version: typeof ARCHIVE_VERSION;
  records: number;
  createdAt: string;
  runs?: string[];
}

export const EVIDENCE_METHODS = ['search', 'page', 'wikidataId', 'sparql', 'labels', 'properties'] as const;
export type EvidenceMethod = (typeof EVIDENCE_METHODS)[number];

/**
 * The key ignores what does not change the answer: surrounding whitespace and runs of spaces in text arguments,
 * trailing `undefined` arguments (a default limit passed or not). The evidence kind is not part of the key: an
 * archive recorded live replays in a static deploy and the other way round.
 */
const normaliseArg = (a: unknown): unknown => (typeof a === 'string' ? a.trim().replace(/[ \t]+/g, ' ') : a === undefined ? null : a);

export const requestKey = (request: RecordedRequest): string => {
  if (request.source === 'kg') return `kg ${request.endpoint} ${stableJson(request.args)}`;
  if (request.source === 'verify') return `verify ${request.pair}`;
  const args = request.args.map(normaliseArg);
  while (args.length && args[args.length - 1] === null) args.pop();
  return `evidence ${request.method} ${stableJson(args)}`;
};

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` give one key. */
export const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v,
  ) ?? 'null';

/** A short readable form of a request, for the "not in the recording" observation. */
export const describeRequest = (request: RecordedRequest): string => {
  const text =
    request.source === 'kg'
      ? `kg ${request.endpoint}(${JSON.stringify(request.args)})`
      : request.source === 'verify'
        ? `verify(${request.pair})`
        : `${request.method}(${request.args.map((a) => JSON.stringify(a ?? null)).join(', ')})`;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

export { sha256Hex } from '../text/sha256';

/** Receives each request → response a run sees; the engine stores it with the run. */
export type RecordSink = (record: EvidenceRecord) => void | Promise<void>;

/** A replay miss is not evidence: recording it would turn "not in the recording" into a recorded answer. */
const errorOf = (err: unknown): { code: string; message: string } | null =>
  err instanceof EvidenceError && err.name !== 'ReplayMiss' ? { code: err.code, message: err.message } : null;

/**
 * Passes every call through to `inner` and hands the request and its response (or its EvidenceError) to `sink`.
 * Other errors (aborts, limits) are not evidence and are not recorded.
 */
export const recordingEvidence = (inner: Evidence, sink: RecordSink): Evidence => {
  const wrap =
    <A extends unknown[], R>(method: EvidenceMethod, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const request: RecordedRequest = { source: 'evidence', kind: inner.kind, method, args: args.map((a) => a ?? null) };
      const key = requestKey(request);
      try {
        const body = await call(...args);
        await sink({ key, request, response: { body: body ?? null } });
        return body;
      } catch (err) {
        const error = errorOf(err);
        if (error) await sink({ key, request, response: { error } });
        throw err;
      }
    };
  return {
    kind: inner.kind,
    search: wrap('search', (q: string, limit?: number) => inner.search(q, limit)),
    page: wrap('page', (title: string) => inner.page(title)),
    wikidataId: wrap('wikidataId', (title: string) => inner.wikidataId(title)),
    sparql: wrap('sparql', (query: string) => inner.sparql(query)),
    labels: wrap('labels', (ids: string[], language?: string) => inner.labels(ids, language)),
    properties: wrap('properties', (id: string, limit?: number) => inner.properties(id, limit)),
    ...(inner.health ? { health: () => inner.health!() } : {}),
  };
};

/** Records each KG call's result (or its failure, as for evidence: EvidenceErrors only) through `sink`. */
export const recordingKg = (inner: KnowledgeApi, sink: RecordSink): KnowledgeApi => ({
  async call(call) {
    const request: RecordedRequest = { source: 'kg', endpoint: call.endpoint, args: call.args };
    const key = requestKey(request);
    try {
      const body = await inner.call(call);
      await sink({ key, request, response: { body } });
      return body;
    } catch (err) {
      const error = errorOf(err);
      if (error) await sink({ key, request, response: { error } });
      throw err;
    }
  },
});

/** Answers each KG call from the archive; nothing is sent. */
export const replayingKg = (source: ReplaySource, onMiss: (request: RecordedRequest) => void): KnowledgeApi => ({
  call: async (call) => (await answerFrom(source, { source: 'kg', endpoint: call.endpoint, args: call.args }, onMiss)) as string,
});

/**
 * Thrown for a request an archive does not hold, or holds with an answer that is not one (`reason`); the tool turns
 * it into the observation the agent sees. Either way the run goes on, and the miss is counted.
 */
export class ReplayMiss extends EvidenceError {
  constructor(
    readonly request: RecordedRequest,
    reason?: string,
  ) {
    super(reason ? `the recording's answer to ${describeRequest(request)} is not usable (${reason}); treated as not in the recording` : `not in the recording: ${describeRequest(request)}`, 'not_found');
    this.name = 'ReplayMiss';
  }
}

/** An archive's records by key; `get` answers a record's response as stored (JSON text), without loading the rest. */
export interface ReplaySource {
  get(key: string): Promise<string | undefined>;
}

const ERROR_CODES: readonly string[] = ['refused', 'timeout', 'upstream', 'not_found', 'too_large', 'syntax'];

/** The kind of answer a request expects: its Evidence method, `kg` or `verify`. */
const kindOf = (request: RecordedRequest) => (request.source === 'evidence' ? request.method : request.source);

/**
 * What is wrong with a stored response to `request`, or null: it must be `{body}` of the request's shape or
 * `{error: {code, message}}`. Checked on upload (a refused line) and on replay (a miss), so a tool never sees a body
 * of the wrong shape whatever the storage holds.
 */
export const responseProblem = (request: RecordedRequest, response: unknown): string | null => {
  const r = response as Partial<{ body: unknown; error: { code?: unknown; message?: unknown } }> | null;
  if (!r || typeof r !== 'object' || Array.isArray(r)) return 'the response must be {"body": …} or {"error": {"code", "message"}}';
  if ('body' in r) return bodyShapeProblem(kindOf(request), r.body);
  if ('error' in r && r.error && typeof r.error === 'object' && typeof r.error.message === 'string') return null;
  return 'the response must be {"body": …} or {"error": {"code", "message"}}';
};

/** Looks a request up in an archive; `onMiss` is told about each miss (the engine counts them in usage). */
export const answerFrom = async (source: ReplaySource, request: RecordedRequest, onMiss: (request: RecordedRequest) => void): Promise<unknown> => {
  const stored = await source.get(requestKey(request));
  if (stored === undefined) {
    onMiss(request);
    throw new ReplayMiss(request);
  }
  let response: unknown;
  try {
    response = JSON.parse(stored);
  } catch {
    response = undefined;
  }
  const problem = responseProblem(request, response);
  if (problem) {
    onMiss(request);
    throw new ReplayMiss(request, problem);
  }
  const hit = response as RecordedResponse;
  if ('error' in hit) {
    const code = ERROR_CODES.includes(hit.error.code) ? (hit.error.code as EvidenceError['code']) : 'upstream';
    throw new EvidenceError(hit.error.message, code);
  }
  return hit.body;
};

/** Evidence served from an archive only: nothing reaches Wikimedia, D1 or the snapshot. */
export const replayingEvidence = (source: ReplaySource, onMiss: (request: RecordedRequest) => void): Evidence => {
  const serve =
    (method: EvidenceMethod) =>
    async (...args: unknown[]): Promise<never> =>
      answerFrom(source, { source: 'evidence', kind: 'static', method, args: args.map((a) => a ?? null) }, onMiss) as never;
  return {
    kind: 'static',
    search: serve('search'),
    page: serve('page'),
    wikidataId: serve('wikidataId'),
    sparql: serve('sparql'),
    labels: serve('labels'),
    properties: serve('properties'),
    health: async () => ({ checked: false, message: 'evidence is replayed from an archive' }),
  };
};

/** An archive as JSONL: the header line, then one record per line. */
export const encodeArchive = (records: Iterable<EvidenceRecord>, extra: { runs?: string[] } = {}): string => {
  const lines: string[] = [];
  for (const r of records) lines.push(JSON.stringify({ key: r.key, request: r.request, response: r.response }));
  const header: ArchiveHeader = { format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, records: lines.length, createdAt: new Date().toISOString(), ...extra };
  return `${[JSON.stringify(header), ...lines].join('\n')}\n`;
};

export class ArchiveFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveFormatError';
  }
}

/** Checks an archive's first line; throws ArchiveFormatError naming what is wrong. */
export const checkHeader = (value: unknown): ArchiveHeader => {
  const h = value as Partial<ArchiveHeader> | null;
  if (h?.format !== ARCHIVE_FORMAT) throw new ArchiveFormatError(`line 1 must be the header {"format": "${ARCHIVE_FORMAT}", "version": ${ARCHIVE_VERSION}, …}`);
  if (h.version !== ARCHIVE_VERSION) throw new ArchiveFormatError(`archive version ${String(h.version).slice(0, 20)} is not supported (this server reads version ${ARCHIVE_VERSION})`);
  return h as ArchiveHeader;
};

/**
 * Checks one record line (hostile input): a request of a known kind, a response of that request's shape. The key is
 * recomputed from the request, so a record cannot claim another request's key.
 */
export const checkRecord = (value: unknown, line: number): EvidenceRecord => {
  const r = value as Partial<EvidenceRecord>;
  const req = r?.request as RecordedRequest | undefined;
  const res = r?.response as RecordedResponse | undefined;
  const bad = (what: string) => new ArchiveFormatError(`line ${line}: ${what}`);
  if (!req || typeof req !== 'object') throw bad('a record needs a request');
  if (req.source === 'evidence') {
    if (!(EVIDENCE_METHODS as readonly string[]).includes(req.method) || !Array.isArray(req.args)) throw bad('an evidence request needs a known method and an args array');
  } else if (req.source === 'kg') {
    if (typeof req.endpoint !== 'string' || !req.args || typeof req.args !== 'object') throw bad('a kg request needs an endpoint and an args object');
  } else if (req.source === 'verify') {
    if (typeof req.pair !== 'string' || !PAIR_HASH.test(req.pair)) throw bad('a verify request needs the pair\'s SHA-256 as 64 lower-case hex digits');
  } else throw bad('request.source must be "evidence", "kg" or "verify"');
  const problem = responseProblem(req, res);
  if (problem) throw bad(`${kindOf(req)}: ${problem}`);
  return { key: requestKey(req), request: req, response: res as RecordedResponse };
};
