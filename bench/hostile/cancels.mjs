// Issue 33 group of bench/hostile, `cancels`: MCP `answer` calls that are cancelled by `notifications/cancelled` (a
// POST of its own, to a stateless server), or whose connection is dropped, against `npm run dev` with a model that
// waits 20 s before it answers. What it shows: the run ends `cancelled` within seconds instead of running on.
import { connect } from 'node:net';
import { mcpCall, MCP_ACCEPT, measureAll, runStatus, startLongModel, TERMINAL, wait } from './client-kit.mjs';

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

export const cancelsGroup = { setup: startLongModel, run: ({ url, pid, key }) => measureAll({ url, pid }, cancelCases(url, key.value)) };
