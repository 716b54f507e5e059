export declare const startWikidataApi: (
  names: Record<string, Record<string, string[]>>,
  options?: { host?: string },
) => Promise<{ url: string; requests: string[]; close(): Promise<void> }>;
