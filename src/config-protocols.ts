import * as z from 'zod';
import { PURPOSES, type Purpose } from './config-purposes';

/**
 * How a model is spoken to (src/engine/tool-protocol.ts): `text` writes the tools into the prompt and reads the reply
 * as the agent's text protocol, `native` sends them as functions and asks structured steps for a JSON schema, `auto`
 * speaks native where the model is known to support it (a bundled probe record, Workers AI's catalogue) and text
 * elsewhere. Parsed with the rest of the configuration by src/config.ts, the only module that reads the environment.
 */
export const TOOL_PROTOCOLS = ['text', 'native', 'auto'] as const;
export type ToolProtocol = (typeof TOOL_PROTOCOLS)[number];

const message = (name: string) => `${name} must be ${TOOL_PROTOCOLS.join(', ')} (docs/CONFIGURATION.md, "Tool protocol")`;

export const toolProtocolVars = {
  /** The deployment's protocol for every purpose without its own LLM_TOOL_PROTOCOL_<PURPOSE>; text by default. */
  LLM_TOOL_PROTOCOL: z.enum(TOOL_PROTOCOLS, { message: message('LLM_TOOL_PROTOCOL') }).default('text'),
};

const PREFIX = 'LLM_TOOL_PROTOCOL_';
/** `generateQuery` → `LLM_TOOL_PROTOCOL_GENERATE_QUERY`, as LLM_MODEL_<PURPOSE> names them. */
const varOf = (purpose: Purpose) => `${PREFIX}${purpose.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
const PURPOSE_BY_VAR = new Map(PURPOSES.map((p) => [varOf(p), p]));

/** Reads every `LLM_TOOL_PROTOCOL_<PURPOSE>`; an unknown purpose or value is a problem named, not a var ignored. */
export const parsePurposeProtocols = (raw: Record<string, unknown>, issues: string[]): Partial<Record<Purpose, ToolProtocol>> => {
  const out: Partial<Record<Purpose, ToolProtocol>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!key.startsWith(PREFIX) || typeof value !== 'string') continue;
    const purpose = PURPOSE_BY_VAR.get(key);
    const protocol = TOOL_PROTOCOLS.find((p) => p === value.trim());
    if (!purpose) issues.push(`${key}: no such purpose; per-purpose protocols are ${[...PURPOSE_BY_VAR.keys()].join(', ')}`);
    else if (!protocol) issues.push(`${key}: ${message(key).replace(`${key} `, '')}`);
    else out[purpose] = protocol;
  }
  return out;
};
