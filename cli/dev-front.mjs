// The front door of `npm run dev` (issue 41, item 7): a small Node HTTP server on the user's port that passes every
// request through to wrangler's own dev server on a loopback port only this process knows.
//
// Why it exists: when workerd dies or restarts under wrangler, wrangler's dev proxy answers the request in flight
// with `500` and its own stack as text ("Error: Network connection lost." and a file path of this machine), and the
// same happens to a Worker exception that escapes to miniflare's entry worker. No code of the Worker runs then, and
// wrangler has no setting to leave the stack out. So the answer is judged here, where it leaves the machine: the
// Worker answers every error as JSON, so a 5xx that is not JSON is not the Worker's and is replaced by a JSON
// `503 dev_server_unavailable` with `Retry-After`; its original text goes to this terminal, not to the client.
//
// Everything else is streamed through untouched, both ways, without buffering: headers as received (names, order and
// repeats kept), bodies piped as they come, SSE flushed as each piece arrives. A client that goes away ends the
// upstream request with it (the Worker sees the disconnect as before); an upstream that breaks mid-body breaks the
// client's connection (the client sees a truncated body, as before, never a stack).
import http from 'node:http';
import net from 'node:net';
import { pipeline } from 'node:stream';

/** Headers about one connection, not the message: never forwarded (node sets its own for each side). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'expect']);
/** How much of a replaced error body is read for the terminal (the rest is dropped with its connection). */
const LOGGED_BODY_BYTES = 4_096;
/**
 * Idle pooled connections to wrangler are closed after this long: its server closes idle keep-alive connections
 * after 5 s, and a request written into a connection the other side is closing at that moment would fail for
 * nothing.
 */
const IDLE_UPSTREAM_MS = 3_000;
const RETRY_AFTER_S = 1;

const MESSAGES = {
  unreachable: 'the local Worker is not reachable: npm run dev is starting or restarting it; retry in a moment',
  replaced: "the local Worker did not answer: it stopped or restarted mid-request, or failed outside its own error handling (npm run dev's terminal says which); retry in a moment",
};

/** `rawHeaders` ([name, value, name, value, …]) without the hop-by-hop names and without `drop`. */
const forwardable = (raw, drop = []) => {
  const out = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!HOP_BY_HOP.has(name) && !drop.includes(name)) out.push(raw[i], raw[i + 1]);
  }
  return out;
};

/** An answer that is not the Worker's own: a server error whose body is not JSON (a proxy's stack, an error page). */
const notTheWorkers = (up) => {
  if ((up.statusCode ?? 0) < 500) return false;
  const type = String(up.headers['content-type'] ?? '').toLowerCase();
  return !/^application\/([\w.+-]*\+)?json\b/.test(type);
};

const sendUnavailable = (res, why) => {
  if (res.headersSent) return void res.destroy();
  const body = JSON.stringify({ error: { code: 'dev_server_unavailable', message: MESSAGES[why] } });
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'retry-after': String(RETRY_AFTER_S),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
};

/** Reads the start of a replaced body for the terminal, then drops the rest with its connection. */
const logReplaced = (req, up, log) => {
  let text = '';
  up.on('data', (chunk) => {
    text += chunk.toString('utf8', 0, Math.max(0, LOGGED_BODY_BYTES - text.length));
    if (text.length >= LOGGED_BODY_BYTES) up.destroy();
  });
  const done = () => log(`npm run dev: ${req.method} ${req.url.slice(0, 200)} got ${up.statusCode} from wrangler instead of the Worker's answer; the client got 503 dev_server_unavailable. What wrangler said:\n${text.trimEnd()}`);
  up.once('close', done);
  up.on('error', () => {});
};

/**
 * The upstream broke after the answer began: the client's connection ends without the body's proper end, so any
 * HTTP client sees a truncated answer, as without this hop. An event stream first gets a comment saying why (SSE
 * readers skip comments); its run goes on in its Durable Object and can be followed again with Last-Event-ID.
 */
const brokeMidway = (res, up) => {
  if (res.destroyed || res.writableFinished) return;
  up.unpipe(res);
  if (!String(up.headers['content-type'] ?? '').startsWith('text/event-stream') || !res.socket) return void res.destroy();
  res.write(': the local Worker stopped (npm run dev restarts it); follow the run again with Last-Event-ID\n\n');
  res.socket.end();
};

/** A request with a body: one that announces a length other than 0, or a transfer coding. */
const hasBody = (req) => (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

/** The client's address as miniflare would have named it, for a request that does not name one itself. */
const clientAddress = (socket) => String(socket.remoteAddress ?? '').replace(/^::ffff:/, '');

const forward = (req, res, { upstream, agent, log }) => {
  const headers = forwardable(req.rawHeaders);
  if (req.headers['cf-connecting-ip'] === undefined && req.socket.remoteAddress) headers.push('CF-Connecting-IP', clientAddress(req.socket));
  const upReq = http.request({ host: upstream.host, port: upstream.port, method: req.method, path: req.url, headers, agent, setHost: false });
  // The client went away before its answer was complete: the Worker sees the disconnect, as it would directly.
  res.on('close', () => !res.writableFinished && upReq.destroy());
  req.on('error', () => upReq.destroy());
  upReq.on('error', (err) => {
    if (res.destroyed) return; // the client went first
    if (res.headersSent) {
      // The answer began: its own stream decides how it ends (brokeMidway). What the client still sends is dropped,
      // so a client that sends its whole body before reading still gets the answer rather than a reset.
      req.unpipe(upReq);
      return void req.resume();
    }
    if (err.code !== 'ECONNREFUSED') log(`npm run dev: ${req.method} ${req.url.slice(0, 200)}: the connection to wrangler broke before an answer (${err.code ?? err.message}); the client got 503 dev_server_unavailable`);
    sendUnavailable(res, err.code === 'ECONNREFUSED' ? 'unreachable' : 'replaced');
  });
  upReq.on('response', (up) => {
    if (notTheWorkers(up)) {
      logReplaced(req, up, log);
      return sendUnavailable(res, 'replaced');
    }
    res.writeHead(up.statusCode, up.statusMessage, forwardable(up.rawHeaders, ['transfer-encoding']));
    // A streamed answer (SSE) shows its headers at once, as it did without this hop; a sized one goes out with its body.
    if (up.headers['content-length'] === undefined) res.flushHeaders();
    up.pipe(res);
    up.once('close', () => !up.complete && brokeMidway(res, up));
    up.on('error', () => {});
  });
  if (hasBody(req)) req.pipe(upReq);
  else {
    req.resume();
    upReq.end();
  }
};

/** A WebSocket (or any upgrade) is passed through as bytes once its request is written upstream. */
const tunnel = (req, socket, head, { upstream, log }) => {
  const up = net.connect(upstream.port, upstream.host);
  let connected = false;
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  up.once('connect', () => {
    connected = true;
    up.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) up.write(head);
    pipeline(up, socket, () => {});
    pipeline(socket, up, () => {});
  });
  up.once('error', (err) => {
    if (!connected) log(`npm run dev: upgrade ${req.url.slice(0, 200)} could not reach wrangler (${err.code ?? err.message})`);
    socket.destroy();
  });
  socket.on('error', () => up.destroy());
};

/**
 * Listens on `ip:port` and passes everything to wrangler at `upstream` ({host, port}); resolves once listening, rejects
 * with the listen error (a taken port: EADDRINUSE).
 * @param {{ ip: string, port: number, upstream: { host: string, port: number }, log?: (line: string) => void }} options
 * @returns {Promise<import('node:http').Server>}
 */
export const startFront = ({ ip, port, upstream, log = (line) => console.error(line) }) => {
  const agent = new http.Agent({ keepAlive: true, timeout: IDLE_UPSTREAM_MS, scheduling: 'lifo' });
  // requestTimeout 0: a slow upload or a long stream is the Worker's to judge, as it was before this hop.
  const server = http.createServer({ requestTimeout: 0, noDelay: true }, (req, res) => {
    res.sendDate = false; // the Worker's Date header, not a second one
    forward(req, res, { upstream, agent, log });
  });
  server.on('upgrade', (req, socket, head) => tunnel(req, socket, head, { upstream, log }));
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, ip, () => {
      server.off('error', fail);
      ok(server);
    });
  });
};
