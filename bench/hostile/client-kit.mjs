// Shared pieces of the readers and cancels groups of bench/hostile (issue 33): a model that writes long replies,
// clients that stop reading, polling runs until they end, the Worker heap after a full collection, and the row loop.
import { connect } from 'node:net';
import { createServer } from 'node:http';
import { measureCase, rssOf } from './measure.mjs';

export const KB = 1024;
export const wait = (ms) => new Promise((r) => setTimeout(r, ms));
export const mb = (bytes) => `${Math.round(bytes / 2 ** 20)}`;

/** The reply a question's tags ask for: `#size=600` KB of text, `#delay=ms` before it starts, `#pace=ms` per 16 KB. */
const shapeOf = (body) => {
  const tag = (name, fallback) => Number(new RegExp(`#${name}=(\\d+)`).exec(body)?.[1] ?? fallback);
  return { bytes: tag('size', 0) * KB, delay: tag('delay', 0), pace: tag('pace', 40) };
};

/** An OpenAI-compatible model that writes long replies in 16 KB pieces (a 1 MiB reply cap allows 900 KB of text). */
export const startLongModel = async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      const request = JSON.parse(body || '{}');
      const { bytes, delay, pace } = shapeOf(body);
      const text = bytes ? 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, bytes) : 'Paris';
      await wait(delay);
      if (!request.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ id: 'x', object: 'chat.completion', model: 'long', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let gone = false;
      res.on('close', () => (gone = true));
      for (let at = 0; at < text.length && !gone; at += 16 * KB) {
        res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'long', choices: [{ index: 0, delta: { content: text.slice(at, at + 16 * KB) }, finish_reason: null }] })}\n\n`);
        await wait(pace);
      }
      res.end(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'long', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } })}\n\ndata: [DONE]\n\n`);
    });
  });
  await new Promise((r) => server.listen(Number(process.env.BENCH_PORTS?.split(',')[3] ?? 0), '127.0.0.1', r));
  return {
    // Sixty followers and the polling of twenty runs are more than the bench key's usual 120 requests a minute.
    vars: { LLM_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, RATE_LIMIT_PER_MINUTE: '100000' },
    close: () => new Promise((r) => (server.closeAllConnections?.(), server.close(r))),
  };
};

/**
 * A client that sends a request, reads the response head (and whatever came with it), then stops reading: its socket
 * is paused, so the kernel's small receive window fills and the server has to hold (or skip) the rest.
 */
export const stalledClient = (url, key, { method = 'GET', path, accept = 'text/event-stream', body, until }) =>
  new Promise((resolve, reject) => {
    const { port } = new URL(url);
    const payload = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: ${accept}\r\n` +
      (payload ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` : '') +
      'Connection: keep-alive\r\n\r\n';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(head + payload));
    socket.setRecvBufferSize?.(16 * KB);
    let got = '';
    let stopAt;
    const stop = () => {
      socket.off('data', onData);
      socket.pause();
      resolve({ socket, head: got, runId: /x-run-id: ([0-9a-f-]{36})/i.exec(got)?.[1] ?? /run ([0-9a-f-]{36}) started/.exec(got)?.[1] });
    };
    // With `until`, it reads on a little (at most 1 s) for what it is waiting to see, then stops.
    const onData = (d) => {
      got += d;
      if (!got.includes('\r\n\r\n')) return;
      if (!until || until.test(got)) return stop();
      stopAt ??= setTimeout(stop, 1000);
    };
    socket.on('data', onData);
    socket.on('error', reject);
    setTimeout(() => reject(new Error(`no response head for ${path} within 15 s`)), 15_000).unref();
  });

export const json = async (url, path, init = {}) => {
  const res = await fetch(`${url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  return res.json().catch(() => ({}));
};

export const runStatus = async (url, runId) => (await json(url, `/v1/runs/${runId}`)).status;
export const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'limited']);

/** Polls the runs until each has ended (or `ms` pass); their statuses, counted. */
const untilEnded = async (url, runIds, ms = 30_000) => {
  const deadline = Date.now() + ms;
  let statuses = [];
  statuses = runIds.map(() => undefined);
  while (Date.now() < deadline && !statuses.every((s) => TERMINAL.has(s))) {
    statuses = await Promise.all(runIds.map((id, i) => (TERMINAL.has(statuses[i]) ? statuses[i] : runStatus(url, id))));
    await wait(300);
  }
  const counts = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(', ');
};

/**
 * The Worker isolate's JavaScript heap in use right after a full garbage collection, asked through the dev server's
 * inspector (BENCH_PORTS' third port; Node 22 for its WebSocket): what the clients left behind, as opposed to RSS,
 * which V8 gives back to the system late or not at all. NaN when there is no inspector to ask.
 */
export const heapAfterGc = async (url) => {
  const port = Number(process.env.BENCH_PORTS?.split(',')[2]);
  if (!port || typeof WebSocket === 'undefined') return Number.NaN;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { origin: 'https://devtools.devprod.cloudflare.dev' } });
  try {
    await new Promise((ok, fail) => ((ws.onopen = ok), (ws.onerror = fail)));
    const pending = new Map();
    let id = 0;
    ws.onmessage = (m) => {
      const reply = JSON.parse(m.data);
      pending.get(reply.id)?.(reply);
    };
    const call = (method) => new Promise((ok) => (pending.set(++id, ok), ws.send(JSON.stringify({ id, method }))));
    await call('HeapProfiler.enable');
    // The collection runs when a request next enters the isolate.
    const collected = call('HeapProfiler.collectGarbage');
    await fetch(`${url}/healthz`);
    await Promise.race([collected, wait(5000)]);
    return (await Promise.race([call('Runtime.getHeapUsage'), wait(5000)]))?.result?.usedSize ?? Number.NaN;
  } catch {
    return Number.NaN;
  } finally {
    ws.close();
  }
};

/** The ids of the runs whose question holds `marker` (the index hears of a run just after it starts). */
export const runsMarked = async (url, marker, count) => {
  let ids = [];
  for (let i = 0; i < 50 && ids.length < count; i++) {
    ids = ((await json(url, '/v1/runs?limit=50')).runs ?? []).filter((r) => r.question.includes(marker)).map((r) => r.runId);
    if (ids.length < count) await wait(100);
  }
  return ids;
};

/**
 * Holds `clients` open until their runs end, then closes them. Says the RSS (against `start.rss`) while they are held
 * and 3 s after they closed, and the heap after a full collection at the start, while held and after.
 */
export const holdThenClose = async (url, pid, start, clients, runIds) => {
  const ended = await untilEnded(url, runIds);
  const held = rssOf(pid);
  const heldHeap = await heapAfterGc(url);
  for (const c of clients) c.socket.destroy();
  await wait(3000);
  const after = rssOf(pid);
  const afterHeap = await heapAfterGc(url);
  return (
    `${clients.length} never read; runs: ${ended}; workerd RSS +${mb(held - start.rss)} MB while held, +${mb(after - start.rss)} MB 3 s after they closed; ` +
    `heap after GC ${mb(start.heap)} → ${mb(heldHeap)} → ${mb(afterHeap)} MB`
  );
};

/** Where a case starts from: RSS, and the heap after a full collection. */
export const startingPoint = async (url, pid) => ({ heap: await heapAfterGc(url), rss: rssOf(pid) });

export const answerBody = (question, mode = 'parametric') => ({ question, mode });
export const mcpCall = (id, question, token) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'answer', arguments: { question, mode: 'parametric' }, ...(token !== undefined ? { _meta: { progressToken: token } } : {}) },
});
export const MCP_ACCEPT = 'application/json, text/event-stream';

const normal = (url) => async () => {
  const run = await json(url, '/v1/answer', { method: 'POST', body: JSON.stringify({ question: 'What is the capital of France?', mode: 'parametric' }) });
  return `${run.status}: ${run.answer}`;
};

export const measureAll = async ({ url, pid }, cases) => {
  await normal(url)();
  const rows = [];
  for (const c of cases) {
    const m = await measureCase({ url, pid, reference: normal(url), work: c.work, next: async () => (await normal(url)()).startsWith('succeeded') });
    rows.push({ name: c.name, ...m, output: m.result });
    console.error(`  ${c.name}: ${m.answerMs.toFixed(0)} ms, RSS +${mb(m.rssPeak - m.rssBefore)} MB peak, /healthz ≤ ${m.healthMaxMs.toFixed(0)} ms: ${String(m.result).slice(0, 160)}`);
  }
  return rows;
};
