import type { Context, MiddlewareHandler } from 'hono';
import { averageOf, OverCapError, readCapped } from '../net/read-capped';
import { HttpError } from './errors';
import { MAX_BODY_BYTES, MAX_CONTEXT_BODY_BYTES, MAX_PAGE_BYTES } from '../runs/request-schema';

export interface BodyLimits {
  /** The route takes `context` (pages, tables, passages): up to 16 MB, of which at most 64 KB outside it. */
  allowContext?: boolean;
}

/**
 * JSON and only JSON. A browser may send `text/plain`, form encodings or a typeless Blob to any origin without a
 * CORS preflight ("simple requests"), so accepting those would let any web page start runs on an open server.
 * The suffix form (`application/vnd.x+json`) is the one @hono/zod-openapi's media-type check also accepts.
 */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z.-]+\+)?json$/;

const assertJsonContentType = (header: string | undefined) => {
  const [type, ...params] = (header ?? '').split(';').map((p) => p.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (!JSON_MEDIA_TYPE.test(type) || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new HttpError(415, 'unsupported_media_type', `send the body as JSON with "Content-Type: application/json" (got ${header ? JSON.stringify(header.slice(0, 100)) : 'none'})`);
  }
};

/**
 * A request body as text under a byte cap: a 413 when its declared length or, read as a stream, its bytes pass `cap`
 * (the rest is not read), a 400 when it is not UTF-8. `what` names the body in the messages ("request body").
 * Returns the text and its size in bytes.
 */
export const readBodyText = async (c: Context, cap: number, what: string, overNote = ''): Promise<{ text: string; size: number }> => {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > cap) throw tooLarge(`${what} is ${declared} bytes; the limit is ${cap} bytes${overNote}`);
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(c.req.raw.body, cap);
  } catch (err) {
    if (err instanceof OverCapError) throw tooLarge(err.trickle === undefined ? `${what} is over ${cap} bytes` : `${what} arrived in ${err.trickle.pieces} pieces averaging ${averageOf(err.trickle)} bytes (at least ${err.trickle.minPieceBytes} on average are accepted); send it in larger writes`);
    throw err;
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes), size: bytes.byteLength };
  } catch {
    throw new HttpError(400, 'invalid_encoding', `${what} is not valid UTF-8`);
  }
};

/** UTF-8 length of a string without encoding it (a lone surrogate counts as the 3 bytes of U+FFFD). */
export const utf8Length = (text: string): number => {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
};

/**
 * Reads a JSON body under the contract's limits, all in bytes: 64 KB, or on a route that takes `context` 16 MB of
 * which at most 64 KB outside `context` and 4 MB per page. Every violation is a 400, 413 or 415 with a message that
 * says what to change. Returns the text; the route's zod validator checks what it holds.
 */
const readJsonText = async (c: Context, limits: BodyLimits): Promise<string> => {
  assertJsonContentType(c.req.header('content-type'));
  const cap = limits.allowContext ? MAX_CONTEXT_BODY_BYTES : MAX_BODY_BYTES;
  const { text, size } = await readBodyText(c, cap, 'request body', limits.allowContext ? '' : ' (this route takes no context)');
  if (nestingDepth(text) > MAX_JSON_DEPTH) throw new HttpError(400, 'invalid_json', `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'request body is not valid JSON');
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new HttpError(400, 'invalid_request', 'request body must be a JSON object');
  const forbidden = prototypeKeyPath(raw);
  if (forbidden) throw new HttpError(400, 'invalid_request', `${forbidden} is not a field of this request (an unknown key)`);
  if (size > MAX_BODY_BYTES) {
    // Only real evidence earns the larger limit: `"context": 1` beside 15 MB of anything else does not.
    const context = (raw as { context?: unknown }).context;
    const isContext = context !== null && typeof context === 'object' && !Array.isArray(context);
    const outside = isContext ? utf8Length(JSON.stringify({ ...(raw as object), context: null })) : size;
    if (outside > MAX_BODY_BYTES) {
      throw tooLarge(`request body has ${outside} bytes outside context; the limit is ${MAX_BODY_BYTES} bytes (only pages, tables and passages in context may be larger)`);
    }
  }
  const pages = (raw as { context?: { pages?: unknown } }).context?.pages;
  if (Array.isArray(pages)) {
    pages.forEach((p, i) => {
      const html = (p as { html?: unknown })?.html;
      if (typeof html === 'string' && html.length > MAX_PAGE_BYTES / 3 && utf8Length(html) > MAX_PAGE_BYTES) {
        throw tooLarge(`context.pages.${i}.html is over ${MAX_PAGE_BYTES} bytes of UTF-8`);
      }
    });
  }
  return text;
};

/**
 * Route middleware that runs the byte limits above before the route's zod validator sees the body. Hono's JSON
 * validator reads `c.req.json()`, which would buffer any size; the text we read under the cap goes into the
 * request's body cache, so the validator parses that and never touches the stream.
 */
export const cappedJsonBody = (limits: BodyLimits = {}): MiddlewareHandler => async (c, next) => {
  const text = await readJsonText(c, limits);
  // Hono keeps body reads as promises (its BodyCache type says otherwise).
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
  await next();
};

/** Deeply nested JSON is no real request, and recursive code downstream (validation, storage) could overflow on it. */
export const MAX_JSON_DEPTH = 64;

/** The deepest bracket nesting of a JSON text, ignoring brackets inside strings; one pass, no recursion. */
export const nestingDepth = (text: string): number => {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 || ch === 123) max = Math.max(max, ++depth);
    else if (ch === 93 || ch === 125) depth--;
  }
  return max;
};

/**
 * The path of the first `__proto__` key anywhere in a parsed body. JSON.parse keeps it as an own key, but the
 * validators copy objects key by key (zod's record does), and assigning `__proto__` sets the copy's prototype: the
 * key then vanishes from every strict check while its contents are inherited by whatever reads the object later,
 * e.g. `options.__proto__.maxIterations` read as `options.maxIterations`. So it is refused before any validator runs.
 * (`constructor` and `prototype` stay own keys through those copies, and the strict schemas refuse them as unknown.)
 */
export const prototypeKeyPath = (value: unknown): string | undefined => {
  const stack: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    for (const key of Object.keys(v)) {
      const at = Array.isArray(v) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (key === '__proto__') return at;
      stack.push({ value: (v as Record<string, unknown>)[key], path: at });
    }
  }
  return undefined;
};

const tooLarge = (message: string) => new HttpError(413, 'payload_too_large', message);
