/**
 * Why a request never got an answer, in words: Node's fetch says only "fetch failed" and keeps the reason in
 * `cause` (ECONNREFUSED, ENOTFOUND, a TLS error, a timeout), sometimes as an AggregateError of one per address.
 */
export const fetchFailure = (e: unknown): string => {
  const err = e as Error & { cause?: unknown };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `no answer in time (${err.message})`;
  const causes: string[] = [];
  const walk = (c: unknown, depth: number) => {
    if (!c || depth > 3) return;
    const x = c as { code?: string; message?: string; errors?: unknown[]; cause?: unknown };
    if (Array.isArray(x.errors) && x.errors.length) for (const inner of x.errors) walk(inner, depth + 1);
    else if (x.message || x.code) causes.push(x.code && !x.message?.includes(x.code) ? `${x.code} ${x.message ?? ''}`.trim() : (x.message ?? ''));
    if (x.cause) walk(x.cause, depth + 1);
  };
  walk(err?.cause, 0);
  const reason = [...new Set(causes.filter(Boolean))].join('; ');
  const refused = /ECONNREFUSED/.test(reason) ? 'connection refused: nothing listens there' : '';
  const base = err?.message ?? String(e);
  return [base, refused, reason].filter(Boolean).join(' — ');
};
