import * as z from 'zod';
import type { KgGateway } from '../../../evidence/recording';
import { endpointByPath, KG_ENDPOINTS, type KgDomain } from './endpoints';

export interface KgCall {
  endpoint: string;
  args: Record<string, unknown>;
}

export type Checked = { ok: true; call: KgCall } | { ok: false; error: string };

const callShape = z.object({ endpoint: z.string(), args: z.record(z.string(), z.unknown()).default({}) });

/** The endpoints offered for a domain (its own and the open one), one line each for the prompt. */
export const describeEndpoints = (domain?: string): string =>
  KG_ENDPOINTS.filter((e) => !domain || domain === 'open' || e.domain === domain || e.domain === 'open')
    .map((e) => `${e.path} ${e.signature} — ${e.description}`)
    .join('\n');

/** Reads the model's JSON (an array of calls, possibly inside a code fence or prose). */
export const parseCalls = (text: string): unknown[] => {
  const start = text.search(/[[{]/);
  if (start < 0) return [];
  const end = Math.max(text.lastIndexOf(']'), text.lastIndexOf('}'));
  try {
    const value = JSON.parse(text.slice(start, end + 1));
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
};

/** Validates one call against its endpoint's schema; nothing is sent for a call that fails here. */
export const checkCall = (raw: unknown): Checked => {
  const shape = callShape.safeParse(raw);
  if (!shape.success) return { ok: false, error: 'a call must be {"endpoint": string, "args": object}' };
  const path = shape.data.endpoint.replace(/^\/+/, '');
  const endpoint = endpointByPath.get(path);
  if (!endpoint) return { ok: false, error: `unknown endpoint "${path.slice(0, 80)}"` };
  const args = endpoint.args.safeParse(shape.data.args);
  if (!args.success) {
    return { ok: false, error: `${path}: ${args.error.issues.map((i) => `${i.path.join('.') || 'args'} ${i.message}`).join('; ')}` };
  }
  return { ok: true, call: { endpoint: path, args: args.data } };
};

const MAX_RESULT_CHARS = 1500;

/** Shortens a JSON result: long arrays keep their head, the whole is cut to a prompt-sized string. */
export const trimResult = (value: unknown): string => {
  const shrink = (v: unknown, depth: number): unknown => {
    if (Array.isArray(v)) return v.slice(0, 10).map((x) => shrink(x, depth + 1));
    if (v && typeof v === 'object') {
      if (depth > 3) return '…';
      return Object.fromEntries(Object.entries(v).slice(0, 30).map(([k, x]) => [k, shrink(x, depth + 1)]));
    }
    return typeof v === 'string' && v.length > 400 ? `${v.slice(0, 400)}…` : v;
  };
  const text = JSON.stringify(shrink(value, 0)) ?? 'null';
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text;
};

/** POSTs one validated call to the CRAG API; returns the trimmed `result`, or throws with a short reason. */
export const callKg = async (baseUrl: string, call: KgCall, timeoutMs = 10_000, runSignal?: AbortSignal, gateway?: KgGateway): Promise<string> =>
  gateway ? gateway(call, () => sendKg(baseUrl, call, timeoutMs, runSignal)) : sendKg(baseUrl, call, timeoutMs, runSignal);

const sendKg = async (baseUrl: string, call: KgCall, timeoutMs: number, runSignal?: AbortSignal): Promise<string> => {
  const url = `${baseUrl.replace(/\/+$/, '')}/${call.endpoint}`;
  // A cancelled or timed-out run stops its pending KG request too, not only after it returns.
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = runSignal && typeof AbortSignal.any === 'function' ? AbortSignal.any([runSignal, timeout]) : timeout;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(call.args),
    signal,
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const body = (await res.json()) as { result?: unknown };
  return trimResult(body?.result ?? null);
};

export type { KgDomain };
