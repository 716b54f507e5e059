import type * as z from 'zod';
import { jsonSchemaOf } from './json-schema';
import { LLMError, type ChatMessage, type ChatRequest, type ChatResult, type ChatScope, type LLM } from './types';

/**
 * A step that expects a structure from the model: the structure as a zod schema (what both ways of asking must yield),
 * the step's text parser for a plain reply, and the schema's name as the server is told it.
 */
export interface StructuredSpec<T> {
  name: string;
  schema: z.ZodType<T>;
  /**
   * The schema the server is sent, when `schema` transforms or defaults what it reads (the JSON Schema converter writes
   * only plain shapes); the reply is still validated by `schema`.
   */
  sent?: z.ZodType;
  /** Reads the structure out of a plain-text reply (the text protocol's parser); undefined when it is not there. */
  fromText(text: string): unknown;
}

export interface StructuredReply<T> {
  /** The structure, validated by the spec's schema; undefined when neither way of reading the reply yielded one. */
  value: T | undefined;
  /** The reply that was read (the second call's, when the first was refused). */
  result: ChatResult;
  /** `schema`: the reply was the schema's JSON; `text`: the text parser read it. */
  via: 'schema' | 'text';
  /** Why a call that sent the schema was read as text after all (a refusal, a 400, a reply that is not the schema's JSON). */
  fellBack?: string;
}

const SCHEMA_RULE = 'Reply with one JSON object that matches the response schema you were given, and nothing else.';

/** The messages with the schema rule added to the system message (or a system message of its own when there is none). */
const withRule = (messages: readonly ChatMessage[]): ChatMessage[] => {
  const at = messages.findIndex((m) => m.role === 'system' && typeof m.content === 'string');
  if (at < 0) return [{ role: 'system', content: SCHEMA_RULE }, ...messages];
  return messages.map((m, i) => (i === at ? { ...m, content: `${m.content as string}\n\n${SCHEMA_RULE}` } : m));
};

/** The JSON a reply holds: bare, or in a code fence (some servers' JSON modes add one). */
const jsonOf = (text: string): unknown => {
  const body = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text)?.[1] ?? text;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

const validated = <T>(spec: StructuredSpec<T>, candidate: unknown): T | undefined => {
  if (candidate === undefined) return undefined;
  const parsed = spec.schema.safeParse(candidate);
  return parsed.success ? parsed.data : undefined;
};

const asText = async <T>(llm: LLM, request: ChatRequest, spec: StructuredSpec<T>, scope: ChatScope, fellBack?: string): Promise<StructuredReply<T>> => {
  const result = await llm.chat(request, scope);
  return { value: validated(spec, spec.fromText(result.text)), result, via: 'text', ...(fellBack ? { fellBack } : {}) };
};

/**
 * One structured step's model call. With `schema` true the reply schema goes out as `response_format` and a reply that
 * is the schema's JSON is taken; a reply that is not is read by the text parser, and a server that refuses the schema
 * (a 400, or a refusal) is asked again without it. Without, the call goes as plain text. The schema validates either way.
 * @example askStructured(llm, { purpose: 'final', messages }, { name: 'answer', schema, fromText: (t) => ({ answer: t }) }, true)
 */
export const askStructured = async <T>(llm: LLM, request: ChatRequest, spec: StructuredSpec<T>, schema: boolean, scope: ChatScope = {}): Promise<StructuredReply<T>> => {
  if (!schema) return asText(llm, request, spec, scope);
  // The reply is JSON, not the answer's words: it is not streamed to the run's readers as the answer.
  const { answer: _answer, ...plain } = scope;
  let result: ChatResult;
  try {
    result = await llm.chat({ ...request, messages: withRule(request.messages), responseFormat: { name: spec.name, schema: jsonSchemaOf(spec.sent ?? spec.schema) } }, plain);
  } catch (err) {
    if (!(err instanceof LLMError) || err.status !== 400) throw err;
    return asText(llm, request, spec, scope, `the model server refused the reply schema: ${err.message.slice(0, 200)}`);
  }
  if (result.refusal) return asText(llm, request, spec, scope, `the model refused the reply schema: ${result.refusal.slice(0, 200)}`);
  const value = validated(spec, jsonOf(result.text));
  if (value !== undefined) return { value, result, via: 'schema' };
  return { value: validated(spec, spec.fromText(result.text)), result, via: 'text', fellBack: 'the reply was not the schema\'s JSON' };
};
