import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { installScript } from '../../src/llm/scripted';
import { draftProgress, DRAFT_INTERVAL_MS, DRAFT_MESSAGE_CHARS } from '../../src/mcp/draft-progress';
import { deployedStyle, uniqueKey } from './helpers';
import { CHICAGO_QUESTION, chicagoAgentScript } from '../hqa/fixtures';

/** The official MCP TypeScript client, talking Streamable HTTP to /mcp of the Worker under a deployed-style config. */
const apiKey = uniqueKey('mcp');
const call = deployedStyle({ API_KEYS: apiKey });

// Ajv (the client's default JSON Schema validator) compiles with `new Function`, which workerd refuses; these
// tools declare no output schema, so nothing needs validating.
const noValidation = { getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined }) };

const connect = async (key = apiKey) => {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' }, { jsonSchemaValidator: noValidation });
  const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
    fetch: async (url, init) => call(new URL(url).pathname, init),
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
};

const textOf = (result: Record<string, unknown>) => ((result.content as Array<{ type: string; text?: string }>) ?? []).map((c) => c.text ?? '').join('\n');

describe('/mcp with the official MCP client', () => {
  it('lists the six evidence tools and answer, each with a JSON Schema input', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['answer', 'generateQuery', 'getLabel', 'getWikidataID', 'read', 'runQuery', 'wikisearch']);
    const runQuery = tools.find((t) => t.name === 'runQuery')!;
    expect(runQuery.inputSchema).toMatchObject({ type: 'object', properties: { sparql: { type: 'string' } }, required: ['sparql'] });
    expect(tools.find((t) => t.name === 'answer')!.inputSchema).toMatchObject({ type: 'object', properties: { question: { type: 'string' } }, required: ['question'] });
    // Self-contained schemas: a client cannot resolve references into our OpenAPI components.
    expect(JSON.stringify(tools)).not.toContain('$ref');
    // Written for the schema a client fills in, not for the agent's `Action Input:` text: every field is described,
    // and the description names the fields, without the text protocol's "Input:", "#" or "|" conventions.
    for (const t of tools.filter((x) => x.name !== 'answer')) {
      const properties = Object.entries((t.inputSchema.properties ?? {}) as Record<string, { description?: string }>);
      expect(properties.length, t.name).toBeGreaterThan(0);
      for (const [field, schema] of properties) {
        expect(schema.description, `${t.name}.${field}`).toBeTruthy();
        expect(t.description, t.name).toContain(`\`${field}\``);
      }
      expect(t.description, t.name).not.toMatch(/Input:|#|separated by|"\|"/);
    }
    await client.close();
  });

  it('runs runQuery on the bundled snapshot and returns the observation as text', async () => {
    const client = await connect();
    const result = await client.callTool({
      name: 'runQuery',
      arguments: { sparql: 'SELECT ?b ?bLabel WHERE { wd:Q42 wdt:P19 ?b . SERVICE wikibase:label { bd:serviceParam wikibase:language "en". } }' },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('Cambridge');
    const bad = await client.callTool({ name: 'runQuery', arguments: { query: 'x' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('sparql');
    await client.close();
  });

  it('waits at the politeness gates as its caller, the key POST /v1/tools names, in a turn of its own', async () => {
    // The fair gates serve queued requests in turn by key: a tool call that names no key would queue as nobody's.
    const script = installScript({ generateQuery: ['SELECT ?x WHERE { wd:Q42 wdt:P19 ?x }', 'SELECT ?y WHERE { wd:Q42 wdt:P19 ?y }'] });
    const client = await connect();
    const result = await client.callTool({ name: 'generateQuery', arguments: { question: 'Where was Douglas Adams born?', entities: ['Q42'] } });
    expect(result.isError).toBeFalsy();
    await client.close();
    const mcpCalls = script.requests.length;
    expect(mcpCalls).toBeGreaterThan(0);
    const res = await call('/v1/tools/generateQuery', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ input: { question: 'Where was Douglas Adams born?', entities: ['Q42'] } }),
    });
    expect(res.status).toBe(200);
    const [viaMcp, viaRoute] = [script.scopes[0]?.party, script.scopes[mcpCalls]?.party];
    expect(viaMcp?.key).toMatch(/^key:[0-9a-f]{32}$/);
    expect(viaMcp?.key).toBe(viaRoute?.key);
    expect(viaMcp?.run).toMatch(/^tool:/);
    expect(viaMcp?.run).not.toBe(viaRoute?.run);
  });

  it('answers with progress notifications per step and the run id, answer and confidence at the end', async () => {
    installScript({ final: ['three ticks'] });
    const client = await connect();
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'answer', arguments: { question: 'tick three times', variant: 'crag', mode: 'test-tool-loop', options: { calls: 3, runKey: 'mcp-ticks' } } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('three ticks');
    const structured = result.structuredContent as { runId: string; status: string; answer: string; confidence: unknown };
    expect(structured).toMatchObject({ status: 'succeeded', answer: 'three ticks' });
    expect(structured).toHaveProperty('confidence');
    // One notification per stored step, in order: run, then thought/action/observation per tick, then the answer.
    expect(progress.length).toBeGreaterThanOrEqual(8);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
    expect(progress[0]!.message).toContain(structured.runId);
    expect(progress.some((p) => p.message?.startsWith('Action: tick'))).toBe(true);
    expect(progress.at(-1)!.message).toBe('answer: three ticks');
    // The run is an ordinary run of this key.
    const run = await (await call(`/v1/runs/${structured.runId}`, { headers: { authorization: `Bearer ${apiKey}` } })).json<any>();
    expect(run).toMatchObject({ status: 'succeeded', answer: 'three ticks', mode: 'test-tool-loop' });
    await client.close();
  });

  it("sends the model's text as it is written in progress messages before the answer, between the steps' numbers", async () => {
    installScript({ final: [{ pieces: ['The answer ', 'is ', '42.'], gapMs: 300 }] });
    const client = await connect();
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'answer', arguments: { question: 'six times seven?', variant: 'crag', mode: 'test-tool-loop', options: { calls: 1, delayMs: 50 } } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(textOf(result)).toBe('The answer is 42.');
    const drafts = progress.filter((p) => p.message?.startsWith('Model (final): '));
    // Pieces 300 ms apart are not gathered into one message; together they are the whole reply.
    expect(drafts.length).toBeGreaterThan(1);
    expect(drafts.map((p) => p.message!.slice('Model (final): '.length)).join('')).toBe('The answer is 42.');
    expect(progress.indexOf(drafts.at(-1)!)).toBeLessThan(progress.findIndex((p) => p.message === 'answer: The answer is 42.'));
    // Numbered between the stored steps' event ids: progress only grows, and the steps keep their ids.
    const numbers = progress.map((p) => p.progress);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(drafts.every((p) => !Number.isInteger(p.progress))).toBe(true);
    expect(progress.filter((p) => !drafts.includes(p)).every((p) => Number.isInteger(p.progress))).toBe(true);
    await client.close();
  });

  it('gathers the draft into few bounded messages, one call per message, and says when a call was retried', () => {
    let clock = 0;
    const draft = draftProgress(() => clock);
    expect(draft.delta({ call: 1, purpose: 'agent', text: 'Thought: ' })).toEqual(['Model (agent): Thought: ']);
    expect(draft.delta({ call: 1, purpose: 'agent', text: 'I need ' })).toEqual([]);
    // Another call's text never joins what waits: the waiting text goes first, the new call's first piece at once.
    expect(draft.delta({ call: 2, purpose: 'parametric', answer: true, text: 'Chicago' })).toEqual(['Model (agent): I need ', 'Model (parametric): Chicago']);
    clock += DRAFT_INTERVAL_MS;
    expect(draft.delta({ call: 2, purpose: 'parametric', answer: true, text: ' is' })).toEqual(['Model (parametric):  is']);
    expect(draft.delta({ call: 2, purpose: 'parametric', answer: true, retry: true, text: 'Paris' })).toEqual([
      '(the parametric call was retried: its text so far does not count)',
      'Model (parametric): Paris',
    ]);
    // A long piece goes at once, split into messages of bounded size.
    const long = draft.delta({ call: 2, purpose: 'parametric', answer: true, text: 'x'.repeat(DRAFT_MESSAGE_CHARS + 10) });
    expect(long.map((m) => m.length)).toEqual([DRAFT_MESSAGE_CHARS + 'Model (parametric): '.length, 10 + 'Model (parametric): '.length]);
    expect(draft.delta({ call: 2, purpose: 'parametric', answer: true, text: 'tail' })).toEqual([]);
    expect(draft.flush()).toEqual(['Model (parametric): tail']);
    expect(draft.flush()).toEqual([]);
  });

  it('the answer tool returns the run\'s own verdict: confidence, agreementSources and the verified citations', async () => {
    installScript(chicagoAgentScript());
    const client = await connect();
    const result = await client.callTool({ name: 'answer', arguments: { question: CHICAGO_QUESTION, variant: 'mintaka', mode: 'agent', options: { fewshot: 'zero-shot' } } });
    const structured = result.structuredContent as { runId: string; confidence: string; agreementSources: string[]; citations: Array<{ source: string; verified: boolean; quote?: string }> };
    expect(structured).toMatchObject({ answer: 'Chicago', confidence: 'one_source', agreementSources: ['wikidata'] });
    expect(structured.citations).toContainEqual(expect.objectContaining({ source: 'wikidata', verified: true, quote: 'place: Q1297 (Chicago)', support: 'supports' }));
    const run = await (await call(`/v1/runs/${structured.runId}`, { headers: { authorization: `Bearer ${apiKey}` } })).json<any>();
    expect(structured.citations).toEqual(run.citations);
    await client.close();
  });

  it('refuses a wrong key before any MCP message is handled', async () => {
    await expect(connect(`${apiKey}-wrong`)).rejects.toThrow(/401|unauthorized/i);
    const res = await call('/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(401);
    expect((await res.json<any>()).error.code).toBe('unauthorized');
  });

  it('applies the /v1 body limits and answers GET with 405, in the API error shape', async () => {
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wikisearch', arguments: { query: 'x'.repeat(70_000) } } });
    const tooLarge = await call('/mcp', { method: 'POST', headers, body: big });
    expect(tooLarge.status).toBe(413);
    expect((await tooLarge.json<any>()).error.code).toBe('payload_too_large');
    const wrongType = await call('/mcp', { method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body: '{}' });
    expect(wrongType.status).toBe(415);
    const get = await call('/mcp', { headers });
    expect(get.status).toBe(405);
    expect((await get.json<any>()).error.code).toBe('method_not_allowed');
  });
});
