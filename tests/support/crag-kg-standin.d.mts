export interface CragKgRequest {
  path: string;
  body: string;
  at: number;
  /** It arrived while an earlier Retry-After for its match still ran. */
  insideRetryAfter: boolean;
}

export declare const ENDPOINT_PATHS: string[];

export declare const startCragKgStandIn: (options?: { port?: number; host?: string }) => Promise<{
  url: string;
  requests(): CragKgRequest[];
  close(): Promise<void>;
}>;
