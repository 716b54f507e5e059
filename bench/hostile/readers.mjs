// Issue 33 groups of bench/hostile: clients that do not read what they asked for, and clients that go away.
//   readers — against `npm run dev` with LLM_BASE_URL pointed at a model stand-in that streams long replies (600 or
//             900 KB in 16 KB pieces), clients that open a stream and then never read it: 60 followers of one run's
//             events, 20 streamed answers, 20 chat streams, 3 MCP `answer` calls with progress; and MCP calls with a
//             60,000-character progress token. Each row says what workerd held while they stayed and after they
//             closed. What it shows: every stream keeps a small backlog per client and skips what it cannot deliver.
//   cancels — MCP `answer` calls that are cancelled by `notifications/cancelled`, or whose connection is dropped: the
//             run ends `cancelled` within a second or two instead of running on.
import { connect } from 'node:net';
import { createServer } from 'node:http';
import { measureCase, rssOf } from './measure.mjs';

const KB = 1024;
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes) => `${Math.round(bytes / 2 ** 20)}`;

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
const stalledClient = (url, key, { method = 'GET', path, accept = 'text/event-stream', body, until }) =>
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

const json = async (url, path, init = {}) => {
  const res = await fetch(`${url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  return res.json().catch(() => ({}));
};

const runStatus = async (url, runId) => (await json(url, `/v1/runs/${runId}`)).status;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'limited']);

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
const heapAfterGc = async (url) => {
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
const runsMarked = async (url, marker, count) => {
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
const holdThenClose = async (url, pid, start, clients, runIds) => {
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
const startingPoint = async (url, pid) => ({ heap: await heapAfterGc(url), rss: rssOf(pid) });

const answerBody = (question, mode = 'parametric') => ({ question, mode });
const mcpCall = (id, question, token) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'answer', arguments: { question, mode: 'parametric' }, ...(token !== undefined ? { _meta: { progressToken: token } } : {}) },
});
const MCP_ACCEPT = 'application/json, text/event-stream';

const readerCases = (url, pid, key) => [
  {
    name: 'control: one streamed answer, the model streams 900 KB, its client reads',
    work: async () => {
      const start = await startingPoint(url, pid);
      const res = await fetch(`${url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(answerBody(`Say it long. #size=900 ${crypto.randomUUID()}`)) });
      const bytes = (await res.arrayBuffer()).byteLength;
      await wait(3000);
      return `${res.status}; ${(bytes / 2 ** 20).toFixed(2)} MB read; workerd RSS +${mb(rssOf(pid) - start.rss)} MB 3 s after; heap after GC ${mb(start.heap)} → ${mb(await heapAfterGc(url))} MB`;
    },
  },
  {
    name: 'followers: 60 GET /v1/runs/{id}/events that never read, the model streams 900 KB (issue)',
    work: async () => {
      const start = await startingPoint(url, pid);
      // The run's own client reads (from the first event on) and gives the run id; the model waits 1.5 s so that
      // every follower has subscribed before the reply streams.
      const first = await stalledClient(url, key, { method: 'POST', path: '/v1/answer', body: answerBody(`Say it long. #size=900 #delay=1500 ${crypto.randomUUID()}`) });
      first.socket.resume();
      first.socket.on('data', () => {});
      const followers = await Promise.all(Array.from({ length: 60 }, () => stalledClient(url, key, { path: `/v1/runs/${first.runId}/events` })));
      const out = await holdThenClose(url, pid, start, followers, [first.runId]);
      first.socket.destroy();
      return out;
    },
  },
  {
    name: 'followers: the same 60, reading (control)',
    work: async () => {
      const start = await startingPoint(url, pid);
      const first = await stalledClient(url, key, { method: 'POST', path: '/v1/answer', body: answerBody(`Say it long. #size=900 #delay=1500 ${crypto.randomUUID()}`) });
      const all = [first, ...(await Promise.all(Array.from({ length: 60 }, () => stalledClient(url, key, { path: `/v1/runs/${first.runId}/events` }))))];
      for (const c of all) c.socket.resume().on('data', () => {});
      const out = await holdThenClose(url, pid, start, all.slice(1), [first.runId]);
      first.socket.destroy();
      return out.replace('never read', 'read');
    },
  },
  {
    name: 'answers: 20 streamed POST /v1/answer that never read, 600 KB replies',
    work: async () => {
      const start = await startingPoint(url, pid);
      const clients = await Promise.all(
        Array.from({ length: 20 }, () => stalledClient(url, key, { method: 'POST', path: '/v1/answer', body: answerBody(`Say it long. #size=600 ${crypto.randomUUID()}`) })),
      );
      return holdThenClose(url, pid, start, clients, clients.map((c) => c.runId));
    },
  },
  {
    name: 'chat: 20 streamed chat completions that never read, 600 KB replies',
    work: async () => {
      const start = await startingPoint(url, pid);
      const body = () => ({ model: 'mintaka:parametric', stream: true, messages: [{ role: 'user', content: `Say it long. #size=600 ${crypto.randomUUID()}` }] });
      const clients = await Promise.all(Array.from({ length: 20 }, () => stalledClient(url, key, { method: 'POST', path: '/v1/chat/completions', body: body() })));
      return holdThenClose(url, pid, start, clients, clients.map((c) => c.runId));
    },
  },
  {
    name: 'mcp: 3 answer calls with a 60,000-character progress token that never read, 600 KB replies (issue)',
    work: async () => {
      const start = await startingPoint(url, pid);
      const marker = crypto.randomUUID();
      const calls = await Promise.all(
        [1, 2, 3].map((i) => stalledClient(url, key, { method: 'POST', path: '/mcp', accept: MCP_ACCEPT, body: mcpCall(i, `Say it long. #size=600 ${marker}`, 'x'.repeat(60_000)), until: /progressToken is/ })),
      );
      const refused = calls.filter((c) => /-32602/.test(c.head) && /progressToken/.test(c.head)).length;
      const out = await holdThenClose(url, pid, start, calls, await runsMarked(url, marker, refused === 3 ? 0 : 3));
      return `${refused} of 3 refused with -32602 at once; ${out}`;
    },
  },
  {
    name: 'mcp: 3 answer calls with progress that never read, 600 KB replies',
    work: async () => {
      const start = await startingPoint(url, pid);
      const marker = crypto.randomUUID();
      const calls = await Promise.all([1, 2, 3].map((i) => stalledClient(url, key, { method: 'POST', path: '/mcp', accept: MCP_ACCEPT, body: mcpCall(i, `Say it long. #size=600 #delay=500 ${marker}`, `t${i}`) })));
      return holdThenClose(url, pid, start, calls, await runsMarked(url, marker, 3));
    },
  },
  {
    name: 'mcp: one answer call that reads, 600 KB reply: response size',
    work: async () => {
      const res = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: MCP_ACCEPT }, body: JSON.stringify(mcpCall(1, `Say it long. #size=600 ${crypto.randomUUID()}`, 'progress-1')) });
      const text = await res.text();
      const progress = (text.match(/notifications\/progress/g) ?? []).length;
      return `${res.status}; ${(Buffer.byteLength(text) / 2 ** 20).toFixed(2)} MB in all, ${progress} progress messages, result ${/"result"/.test(text) ? 'received' : 'MISSING'}`;
    },
  },
];

/** Waits until the run's status is `cancelled` (or it ends otherwise, or 15 s pass); what happened, and when. */
const cancelledWithin = async (url, runId, since) => {
  for (let status; Date.now() - since < 15_000; await wait(100)) {
    status = await runStatus(url, runId);
    if (TERMINAL.has(status)) return `run ${status} ${Date.now() - since} ms after the client let go`;
  }
  return 'run still going 15 s after the client let go';
};

/** Opens an MCP `answer` call, reads until its first progress message (the run id), and hands over the socket. */
const openAnswerCall = (url, key, id) =>
  new Promise((resolve, reject) => {
    const { port } = new URL(url);
    const payload = JSON.stringify(mcpCall(id, `Think slowly. #size=200 #delay=20000 ${crypto.randomUUID()}`, `p${id}`));
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: ${MCP_ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`),
    );
    let got = '';
    socket.on('data', (d) => {
      got += d;
      const runId = /run ([0-9a-f-]{36}) started/.exec(got)?.[1];
      if (runId) resolve({ socket, runId });
    });
    socket.on('error', reject);
    setTimeout(() => reject(new Error('no progress within 15 s')), 15_000).unref();
  });

const cancelCases = (url, key) => [
  {
    name: 'mcp: answer cancelled with notifications/cancelled (issue)',
    work: async () => {
      const call = await openAnswerCall(url, key, 7);
      const since = Date.now();
      const res = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: MCP_ACCEPT }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'bench' } }) });
      const out = `${res.status}; ${await cancelledWithin(url, call.runId, since)}`;
      call.socket.destroy();
      return out;
    },
  },
  {
    name: 'mcp: answer whose connection is dropped (issue)',
    work: async () => {
      const call = await openAnswerCall(url, key, 8);
      const since = Date.now();
      call.socket.destroy();
      return cancelledWithin(url, call.runId, since);
    },
  },
  {
    name: 'mcp: 5 answers dropped at once',
    work: async () => {
      const calls = await Promise.all([11, 12, 13, 14, 15].map((id) => openAnswerCall(url, key, id)));
      const since = Date.now();
      for (const c of calls) c.socket.destroy();
      return (await Promise.all(calls.map((c) => cancelledWithin(url, c.runId, since)))).map((s) => s.replace(/ after the client let go/, '')).join(' · ');
    },
  },
];

const normal = (url) => async () => {
  const run = await json(url, '/v1/answer', { method: 'POST', body: JSON.stringify({ question: 'What is the capital of France?', mode: 'parametric' }) });
  return `${run.status}: ${run.answer}`;
};

const measureAll = async ({ url, pid }, cases) => {
  await normal(url)();
  const rows = [];
  for (const c of cases) {
    const m = await measureCase({ url, pid, reference: normal(url), work: c.work, next: async () => (await normal(url)()).startsWith('succeeded') });
    rows.push({ name: c.name, ...m, output: m.result });
    console.error(`  ${c.name}: ${m.answerMs.toFixed(0)} ms, RSS +${mb(m.rssPeak - m.rssBefore)} MB peak, /healthz ≤ ${m.healthMaxMs.toFixed(0)} ms: ${String(m.result).slice(0, 160)}`);
  }
  return rows;
};

export const readersGroup = { setup: startLongModel, run: ({ url, pid, key }) => measureAll({ url, pid }, readerCases(url, pid, key.value)) };
export const cancelsGroup = { setup: startLongModel, run: ({ url, pid, key }) => measureAll({ url, pid }, cancelCases(url, key.value)) };
