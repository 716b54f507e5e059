import { ArchiveFormatError, checkHeader, checkRecord, sha256Hex, type ArchiveHeader, type EvidenceRecord } from './recording';

/**
 * Reads an uploaded archive (docs/ARCHIVE.md) from its byte stream one line at a time, so memory holds one line and
 * the set of keys seen, never the file: a blank line, a line that is no record, a line or a file over its cap, or one
 * record too many stops the read at once, with the line named. A request seen before is skipped as it arrives
 * (the first response wins), so a million copies of one record cost reading time, not memory or storage.
 */

export interface ArchiveLimits {
  /** The whole body, in bytes. */
  maxBytes: number;
  /** One line, in UTF-16 code units (never more than its bytes in UTF-8). */
  maxLineChars: number;
  /** Distinct records. */
  maxRecords: number;
}

/** Over one of the byte or record caps: the route answers 413. */
export class ArchiveTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveTooLarge';
  }
}

/** A record with the name it is stored under for replay (`storeKeyOf`). */
export interface KeyedRecord {
  storeKey: string;
  record: EvidenceRecord;
}

/** Keys up to this length are stored as they are; longer ones (SPARQL queries, long args) by their hash. */
const MAX_PLAIN_KEY = 200;

/**
 * The name a record is stored and looked up under: its key when short (most are: a title, a search, an id), else
 * `sha256:` and the first 32 hex digits of the key's SHA-256. Hashing every line of a large upload would cost more
 * than reading it.
 */
export const storeKeyOf = async (key: string): Promise<string> => (key.length <= MAX_PLAIN_KEY ? key : `sha256:${(await sha256Hex(key)).slice(0, 32)}`);

export interface ArchiveSummary {
  header: ArchiveHeader;
  /** Distinct records handed to `onRecord`. */
  records: number;
  /** Lines skipped because their request came earlier. */
  duplicates: number;
}

/** The line's JSON; a line nested too deeply to parse (a stack overflow) or not JSON at all is refused by its number. */
const parseLine = (line: string, lineNo: number): unknown => {
  try {
    return JSON.parse(line);
  } catch (err) {
    throw new ArchiveFormatError(err instanceof RangeError ? `line ${lineNo} nests too deeply` : `line ${lineNo} is not JSON`);
  }
};

const recordOf = (value: unknown, lineNo: number): EvidenceRecord => {
  try {
    return checkRecord(value, lineNo);
  } catch (err) {
    if (err instanceof RangeError) throw new ArchiveFormatError(`line ${lineNo} nests too deeply`);
    throw err;
  }
};

/**
 * Takes the archive's lines in order: the header first, then records, each checked and handed on unless its request
 * came before. Parsing and checking run synchronously; every so many characters the event loop gets a turn, so other
 * requests (and /healthz) are served while a large upload is read.
 */
const recordTaker = (limits: ArchiveLimits, onRecord: (record: KeyedRecord) => Promise<void>) => {
  let header: ArchiveHeader | undefined;
  const seen = new Set<string>();
  // A line equal to the one before is a duplicate without parsing it (a million copies of one record in a row).
  let previous = '';
  let duplicates = 0;
  let sinceYield = 0;
  const take = async (raw: string, lineNo: number) => {
    sinceYield += raw.length + 64;
    if (sinceYield > YIELD_EVERY_CHARS) {
      sinceYield = 0;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line.trim()) throw new ArchiveFormatError(`line ${lineNo} is blank; an archive has one JSON object on every line`);
    if (header && line === previous) {
      duplicates++;
      return;
    }
    const value = parseLine(line, lineNo);
    if (!header) {
      header = checkHeader(value);
      return;
    }
    previous = line;
    const record = recordOf(value, lineNo);
    const storeKey = await storeKeyOf(record.key);
    if (seen.has(storeKey)) {
      duplicates++;
      return;
    }
    if (seen.size >= limits.maxRecords) throw new ArchiveTooLarge(`the archive holds more than ${limits.maxRecords} distinct records (line ${lineNo})`);
    seen.add(storeKey);
    await onRecord({ storeKey, record });
  };
  const summary = (): ArchiveSummary => {
    if (!header) throw new ArchiveFormatError('the archive is empty: it needs at least the header line');
    return { header, records: seen.size, duplicates };
  };
  return { take, summary };
};

/**
 * The body's lines, one at a time, under the byte cap of the whole and the character cap of one line; a refusal names
 * the line it came at. A line arrives over many chunks in pieces, joined once (linear however long it is).
 */
const forEachLine = async (
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
  limits: ArchiveLimits,
  onLine: (line: string, lineNo: number) => Promise<void>,
) => {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let lineNo = 0;
  let pending: string[] = [];
  let pendingChars = 0;
  let bytes = 0;
  for (;;) {
    const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
    let text: string;
    try {
      text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
    } catch {
      throw new ArchiveFormatError(`line ${lineNo + 1} is not valid UTF-8`);
    }
    if (!chunk.done) {
      bytes += chunk.value.byteLength;
      if (bytes > limits.maxBytes) throw new ArchiveTooLarge(`the archive is over ${limits.maxBytes} bytes (at line ${lineNo + 1})`);
    }
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const piece = text.slice(from, nl);
      if (pendingChars + piece.length > limits.maxLineChars) throw tooLongLine(lineNo + 1, limits.maxLineChars);
      await onLine(pending.length ? pending.join('') + piece : piece, ++lineNo);
      pending = [];
      pendingChars = 0;
      from = nl + 1;
    }
    if (from < text.length) {
      pending.push(text.slice(from));
      pendingChars += text.length - from;
      if (pendingChars > limits.maxLineChars) throw tooLongLine(lineNo + 1, limits.maxLineChars);
    }
    if (chunk.done) break;
  }
  // The last line need not end with a newline; an empty remainder is the end of the file, not a blank line.
  if (pendingChars) await onLine(pending.join(''), ++lineNo);
};

export const readArchiveStream = async (
  body: ReadableStream<Uint8Array> | null,
  limits: ArchiveLimits,
  onRecord: (record: KeyedRecord) => Promise<void>,
): Promise<ArchiveSummary> => {
  const records = recordTaker(limits, onRecord);
  const reader = body?.getReader();
  try {
    await forEachLine(reader, limits, records.take);
  } catch (err) {
    if (reader) await discardRest(reader);
    throw err;
  }
  return records.summary();
};

const YIELD_EVERY_CHARS = 256 * 1024;

/**
 * After a refusal the rest of the body is read and dropped (nothing is kept), up to 64 MiB or 10 s, then the read is
 * cancelled. A client that sends its whole body before it reads the answer (fetch, and wrangler dev's proxy in front of
 * `npm run dev`) otherwise sees a reset connection instead of the refusal.
 */
const DISCARD_BYTES = 64 * 1024 * 1024;
const DISCARD_MS = 10_000;

const discardRest = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
  const until = Date.now() + DISCARD_MS;
  try {
    for (let dropped = 0; dropped <= DISCARD_BYTES && Date.now() < until; ) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing left to drop.
  }
};

const tooLongLine = (line: number, max: number) => new ArchiveTooLarge(`line ${line} is over ${max} characters; one record may hold at most that`);
