import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFront } from '../../cli/dev-front.mjs';
import { freePort } from '../support/dev-server.mjs';

/**
 * Issue 41, item 7: the front server of `npm run dev` (cli/dev-front.mjs) against a stand-in for wrangler's dev
 * server. It must pass the Worker's answers through untouched — streamed, with their headers, whatever their size —
 * and replace only what is not the Worker's: wrangler's `500` with a stack, or no wrangler at all. The real thing,
 * with workerd killed under a live `npm run dev`, is tests/node/dev-workerd-dies.test.ts.
 */
const STACK = 'Error: Network connection lost.\n    at async Object.fetch (file:///work/x/node_modules/miniflare/dist/src/workers/core/entry.worker.js:5495:22)';
const MACHINE = /\/work\/|node_modules|\.js:\d|\bat async\b/;

let upstream: Server;
let front: Server;
let url: string;
const lines: string[] = [];
/** What the stand-in saw of each request: its host header, body digest and size, and whether it was cut off. */
const seen: Array<{ path: string; host?: string; ip?: string; bytes: number; sha: string; cutOff: boolean }> = [];
let releaseSecondEvent = () => {};

const stand = (req: IncomingMessage, res: ServerResponse) => {
  const path = req.url ?? '';
  const hash = createHash('sha256');
  let bytes = 0;
  const record = { path, host: req.headers.host, ip: req.headers['cf-connecting-ip'] as string | undefined, bytes: 0, sha: '', cutOff: false };
  seen.push(record);
  if (path === '/early') {
    // Refuses an upload after its first piece and drops the connection, as a server that stops reading may.
    req.once('data', () => res.writeHead(413, { 'content-type': 'application/json' }).end('{"error":{"code":"too_large","message":"m"}}', () => setTimeout(() => req.socket.destroy(), 50)));
    return;
  }
  req.on('data', (c: Buffer) => {
    bytes += c.length;
    hash.update(c);
  });
  res.on('close', () => (record.cutOff = !res.writableFinished));
  req.on('end', () => {
    record.bytes = bytes;
    record.sha = hash.digest('hex');
    if (path === '/stack') return void res.writeHead(500, { 'content-type': 'text/plain;charset=UTF-8' }).end(STACK);
    if (path === '/html-stack') return void res.writeHead(500, { 'content-type': 'text/html' }).end(`<pre>${STACK}</pre>`);
    if (path === '/json-error') return void res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '7' }).end('{"error":{"code":"storage_unavailable","message":"m"}}');
    if (path === '/echo') return void res.writeHead(200, [['content-type', 'application/json'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']].flat()).end(JSON.stringify({ bytes, sha: record.sha }));
    if (path === '/sse' || path === '/sse-break') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: run\ndata: {"n":1}\n\n');
      if (path === '/sse-break') return void setTimeout(() => res.socket?.destroy(), 100);
      releaseSecondEvent = () => res.end('event: done\ndata: {"n":2}\n\n');
      return;
    }
    if (path === '/hang') return; // never answers; the test's client gives up
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no"}}');
  });
};

beforeAll(async () => {
  upstream = http.createServer(stand);
  // An upgraded connection (a WebSocket's, here a bare echo protocol): switched, then every byte comes back.
  upstream.on('upgrade', (req, socket) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\nX-Seen-Path: ${req.url}\r\n\r\n`);
    socket.pipe(socket);
  });
  await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
  const port = await freePort();
  front = await startFront({ ip: '127.0.0.1', port, upstream: { host: '127.0.0.1', port: (upstream.address() as { port: number }).port }, log: (l) => lines.push(l) });
  url = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  front?.closeAllConnections();
  upstream?.closeAllConnections();
  await new Promise((ok) => front?.close(ok));
  await new Promise((ok) => upstream?.close(ok));
});

const expectUnavailable = async (res: Response) => {
  const text = await res.text();
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(res.headers.get('retry-after')).toBe('1');
  expect(text).not.toMatch(MACHINE);
  expect(JSON.parse(text).error.code).toBe('dev_server_unavailable');
  return JSON.parse(text).error.message as string;
};

describe("npm run dev's front server", () => {
  it("replaces wrangler's stack (text or an HTML page) by a JSON error, and logs the original for the terminal", async () => {
    for (const path of ['/stack', '/html-stack']) {
      expect(await expectUnavailable(await fetch(`${url}${path}`, { method: 'POST', body: '{}' }))).toContain('did not answer');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(lines.join('\n')).toContain('Error: Network connection lost.');
  });

  it("passes the Worker's own errors, statuses and repeated headers through untouched", async () => {
    const res = await fetch(`${url}/json-error`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toEqual({ error: { code: 'storage_unavailable', message: 'm' } });
    const echoed = await fetch(`${url}/echo`, { method: 'POST', body: 'x' });
    expect(echoed.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(seen.at(-1)).toMatchObject({ host: new URL(url).host, ip: '127.0.0.1' });
  });

  it('streams a 20 MB body through whole, sized or chunked', async () => {
    const body = Buffer.alloc(20 * 1024 * 1024, 'abcdefghij');
    const sha = createHash('sha256').update(body).digest('hex');
    const sized = await (await fetch(`${url}/echo`, { method: 'POST', body })).json();
    expect(sized).toEqual({ bytes: body.length, sha });
    const pieces = (async function* () {
      for (let i = 0; i < body.length; i += 1 << 20) yield body.subarray(i, i + (1 << 20));
    })();
    const chunked = await (await fetch(`${url}/echo`, { method: 'POST', body: pieces as unknown as BodyInit, duplex: 'half' } as RequestInit)).json();
    expect(chunked).toEqual({ bytes: body.length, sha });
  });

  it('hands over an early refusal whole while the client is still uploading, even when the upstream then drops the connection', async () => {
    const res = await fetch(`${url}/early`, { method: 'POST', body: Buffer.alloc(20 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: { code: 'too_large', message: 'm' } });
  });

  it('delivers each SSE event as it is written, before the stream ends', async () => {
    const res = await fetch(`${url}/sse`);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: run');
    releaseSecondEvent(); // only now does the stand-in write the rest
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toContain('event: done');
  });

  it('cuts the client off when the upstream breaks mid-stream, saying why in an SSE comment, with no stack', async () => {
    const res = await fetch(`${url}/sse-break`);
    expect(res.status).toBe(200);
    let text = '';
    const reader = res.body!.getReader();
    const ending = await (async () => {
      try {
        for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
        return 'complete';
      } catch {
        return 'cut off';
      }
    })();
    expect(ending).toBe('cut off');
    expect(text).toContain(': the local Worker stopped');
    expect(text).not.toMatch(MACHINE);
  });

  it('ends the upstream request when its client goes away', async () => {
    const before = seen.length;
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    await new Promise((ok) => socket.once('connect', ok));
    socket.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
    while (seen.length === before) await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    const record = seen.at(-1)!;
    for (let i = 0; i < 100 && !record.cutOff; i++) await new Promise((r) => setTimeout(r, 20));
    expect(record.cutOff).toBe(true);
  });

  it('passes an upgraded connection (a WebSocket) through both ways', async () => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => {
      received += d;
      if (received.includes('\r\n\r\n') && !received.includes('ping')) socket.write('ping');
    });
    socket.write('GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    for (let i = 0; i < 100 && !received.endsWith('ping'); i++) await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 101 [^]*X-Seen-Path: \/tunnel[^]*\r\n\r\nping$/);
  });

  it('answers 503 JSON with Retry-After while nothing listens upstream (wrangler starting or restarting)', async () => {
    const port = await freePort();
    const closed = await freePort();
    const lonely = await startFront({ ip: '127.0.0.1', port, upstream: { host: '127.0.0.1', port: closed }, log: () => {} });
    try {
      expect(await expectUnavailable(await fetch(`http://127.0.0.1:${port}/v1/answer`, { method: 'POST', body: '{"question":"q"}' }))).toContain('not reachable');
    } finally {
      lonely.closeAllConnections();
      await new Promise((ok) => lonely.close(ok));
    }
  });
});
