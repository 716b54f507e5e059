// @module-tag slow
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { devOnStub } from '../support/dev-on-stub';

/**
 * Issue 33: under `npm run dev`, an MCP `answer` call that its client cancels — with `notifications/cancelled`, which
 * arrives in a POST of its own to a stateless server, or by dropping the connection — ends its run `cancelled`
 * (docs/MCP.md), instead of the run going on for nobody. The model takes 30 s to answer, so only a cancel ends the
 * run early.
 */
const live = devOnStub({ latencyMs: 30_000 });

const statusOf = async (runId: string) => ((await (await fetch(`${live.dev.url}/v1/runs/${runId}`)).json()) as { status: string }).status;

/** The run's status once it has ended, or what it still is after 25 s (the model alone would take 30 s). */
const endedStatus = async (runId: string) => {
  const deadline = Date.now() + 25_000;
  let status = '';
  while (Date.now() < deadline) {
    status = await statusOf(runId);
    if (['succeeded', 'failed', 'cancelled', 'limited'].includes(status)) return status;
    await new Promise((r) => setTimeout(r, 200));
  }
  return `still ${status}`;
};

const arguments_ = (question: string) => ({ question: `${question} ${crypto.randomUUID()}`, mode: 'parametric' });

describe('npm run dev: an MCP answer call that is let go cancels its run', () => {
  it('by notifications/cancelled from the official client', async () => {
    const client = new Client({ name: 'cancel-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${live.dev.url}/mcp`)));
    const controller = new AbortController();
    let runId: string | undefined;
    const answer = client.callTool({ name: 'answer', arguments: arguments_('What is the capital of France?') }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        runId ??= /run (\S+) started/.exec(p.message ?? '')?.[1];
        if (runId) controller.abort('cancelled by the user');
      },
    });
    await expect(answer).rejects.toThrow();
    expect(runId).toBeDefined();
    expect(await endedStatus(runId!)).toBe('cancelled');
    await client.close();
  });

  it('by dropping the connection', async () => {
    const { port } = new URL(live.dev.url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'answer', arguments: arguments_('What is the capital of Italy?'), _meta: { progressToken: 1 } } });
    const runId = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
      );
      let seen = '';
      socket.on('data', (d) => {
        seen += d;
        const id = /run (\S+) started/.exec(seen)?.[1];
        if (!id) return;
        socket.destroy();
        resolve(id);
      });
      socket.on('error', reject);
    });
    expect(await endedStatus(runId)).toBe('cancelled');
  });
});
