import { KG_ENDPOINTS } from '../../../evidence/crag/endpoints';

export { checkCall, type Checked, type KgCall, type KgDomain } from '../../../evidence/crag/endpoints';

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
