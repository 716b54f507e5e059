// Issue 33 group of bench/hostile, `readers`: against `npm run dev` with LLM_BASE_URL pointed at a model stand-in that streams long replies (600 or
//             900 KB in 16 KB pieces), clients that open a stream and then never read it: 60 followers of one run's
//             events, 10 streamed answers, 10 chat streams, 3 MCP `answer` calls with progress (each next to the same
//             clients reading, as a control), and MCP calls with a 60,000-character progress token. Each row says
//             what workerd held while the clients stayed and after they closed: RSS, and the JavaScript heap right
//             after a full collection (asked through the inspector). What it shows: every stream keeps a small
//             backlog per client and skips what it cannot deliver, so a client that never reads costs what one
//             that reads does.
import { rssOf } from './measure.mjs';
import { answerBody, heapAfterGc, holdThenClose, mb, mcpCall, MCP_ACCEPT, measureAll, runsMarked, stalledClient, startingPoint, startLongModel, wait } from './client-kit.mjs';

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
  ...[false, true].map((reads) => ({
    name: `answers: 10 streamed POST /v1/answer ${reads ? 'that read (control)' : 'that never read'}, 600 KB replies`,
    work: async () => {
      const start = await startingPoint(url, pid);
      const clients = await Promise.all(
        Array.from({ length: 10 }, () => stalledClient(url, key, { method: 'POST', path: '/v1/answer', body: answerBody(`Say it long. #size=600 ${crypto.randomUUID()}`) })),
      );
      if (reads) for (const c of clients) c.socket.resume().on('data', () => {});
      return (await holdThenClose(url, pid, start, clients, clients.map((c) => c.runId))).replace('never read', reads ? 'read' : 'never read');
    },
  })),
  ...[false, true].map((reads) => ({
    name: `chat: 10 streamed chat completions ${reads ? 'that read (control)' : 'that never read'}, 600 KB replies`,
    work: async () => {
      const start = await startingPoint(url, pid);
      const body = () => ({ model: 'mintaka:parametric', stream: true, messages: [{ role: 'user', content: `Say it long. #size=600 ${crypto.randomUUID()}` }] });
      const clients = await Promise.all(Array.from({ length: 10 }, () => stalledClient(url, key, { method: 'POST', path: '/v1/chat/completions', body: body() })));
      if (reads) for (const c of clients) c.socket.resume().on('data', () => {});
      return (await holdThenClose(url, pid, start, clients, clients.map((c) => c.runId))).replace('never read', reads ? 'read' : 'never read');
    },
  })),
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
  ...[false, true].map((reads) => ({
    name: `mcp: 3 answer calls with progress ${reads ? 'that read (control)' : 'that never read'}, 600 KB replies`,
    work: async () => {
      const start = await startingPoint(url, pid);
      const marker = crypto.randomUUID();
      const calls = await Promise.all([1, 2, 3].map((i) => stalledClient(url, key, { method: 'POST', path: '/mcp', accept: MCP_ACCEPT, body: mcpCall(i, `Say it long. #size=600 #delay=500 ${marker}`, `t${i}`) })));
      const bytes = [0, 0, 0];
      if (reads) calls.forEach((c, i) => c.socket.resume().on('data', (d) => (bytes[i] += d.length)));
      const out = (await holdThenClose(url, pid, start, calls, await runsMarked(url, marker, 3))).replace('never read', reads ? 'read' : 'never read');
      return reads ? `${out}; each response ${bytes.map((b) => (b / 2 ** 20).toFixed(2)).join(', ')} MB` : out;
    },
  })),
];

export const readersGroup = { setup: startLongModel, run: ({ url, pid, key }) => measureAll({ url, pid }, readerCases(url, pid, key.value)) };
