import type { SandboxError, SandboxErrorKind } from './types';

interface Described {
  name?: string;
  message?: string;
  stack?: string;
}

const MAX_MESSAGE = 2_000;
const MAX_STACK = 2_000;

/** Turns an error described inside the sandbox into a kind the caller can act on. */
export const classifyError = (described: Described, phase: 'load' | 'call'): SandboxError => {
  const name = described.name ?? 'Error';
  const message = (described.message ?? '').slice(0, MAX_MESSAGE);
  let kind: SandboxErrorKind = 'exception';
  if (phase === 'load' && name === 'SyntaxError') kind = 'syntax';
  else if (/out of memory/i.test(message)) kind = 'memory';
  else if (/stack overflow|maximum call stack/i.test(message)) kind = 'stack';
  else if (name === 'InternalError' && /interrupted/i.test(message)) kind = 'timeout';
  const text = name === 'ThrownValue' ? message : `${name}: ${message}`;
  return { kind, message: text, ...(described.stack ? { stack: described.stack.slice(0, MAX_STACK) } : {}) };
};

/** Kinds after which the QuickJS module is not trusted for another run. */
export const poisonsModule = (kind: SandboxErrorKind) => kind === 'memory' || kind === 'stack' || kind === 'timeout' || kind === 'cpu_budget';

/** Parses the JSON error description, tolerating anything. */
export const parseDescribed = (text: string): Described => {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Described) : { message: String(v) };
  } catch {
    return { message: text };
  }
};
