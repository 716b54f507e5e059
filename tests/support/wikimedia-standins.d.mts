type Handle = (request: Request) => Promise<Response>;

export interface WdqsStats {
  requests: number;
  answered: number;
  tooMany: number;
  failed: number;
  insideRetryAfter: number;
  peakQueryMsPerMinute: number;
  withoutUserAgent: number;
  /** User-Agents with no e-mail address or URL to reach the operator by. */
  withoutContact: number;
  distinctQueries: number;
}

export declare const createWdqsStandIn: (options?: {
  queryMsPerMinute?: number;
  errorsPerMinute?: number;
  costMs?: (query: string) => number;
  failWhen?: (query: string) => boolean;
  now?: () => number;
  /** Bindings in each answer, whatever the query's LIMIT (default 1; Infinity: an answer without end). */
  rows?: number;
  /** How the answer is written: whole, one binding per chunk, or one byte per chunk. */
  pieces?: 'whole' | 'binding' | 'byte';
}) => { handle: Handle; forceRetryAfter(seconds: number, count?: number): void; retryUntil(): number; stats(): WdqsStats };

export interface MediaWikiStats {
  requests: number;
  maxlagAnswers: number;
  /** Requests answered 429 by the per-minute limit. */
  tooMany: number;
  insideRetryAfter: number;
  withoutMaxlag: number;
  withoutUserAgent: number;
  /** User-Agents with no e-mail address or URL to reach the operator by. */
  withoutContact: number;
  peakConcurrency: number;
  distinct: number;
}

export interface PerMinuteLimit {
  /** Counts one request at `t`: undefined within the limit, else the Retry-After in seconds. */
  take(t?: number): number | undefined;
  stats(): { admitted: number; overBudget: number; insideRetryAfter: number; peakPerMinute: number; limit: number };
}

export declare const createPerMinuteLimit: (limit: number, options?: { now?: () => number }) => PerMinuteLimit;

export declare const createMediaWikiStandIn: (options?: {
  lagSeconds?: (now: number) => number;
  retryAfterSeconds?: number;
  latencyMs?: number;
  now?: () => number;
  /** Hits in each search answer, whatever srlimit asked (default 1). */
  searchHits?: number;
  /** Entities nobody asked for, added to each wbgetentities answer. */
  extraEntities?: number;
  /** Wikimedia's per-minute request limit, shared with the other stand-ins given the same one. */
  perMinute?: PerMinuteLimit;
  /** Answers a request itself (a broken mirror): a Response, or undefined for the usual answer. */
  answer?: (params: URLSearchParams) => Response | undefined | Promise<Response | undefined>;
}) => {
  handle: Handle;
  retryUntil(): number;
  stats(): MediaWikiStats;
  /** Requests whose decoded query string matches `pattern`. */
  received(pattern: RegExp): number;
  /** Of those, the ones answered successfully. */
  answered(pattern: RegExp): number;
};

export declare const serveStandIn: (handle: Handle, options?: { port?: number; host?: string; path?: string }) => Promise<{ url: string; close(): Promise<void> }>;
