#!/usr/bin/env node
// A small OpenAI-compatible server on 127.0.0.1 for benchmarks, browser tests and manual runs.
// It answers POST /v1/chat/completions (streaming or not) from per-purpose reply queues, with optional latency
// and injected faults, and records what it received.
//
//   node tests/support/openai-stub.mjs --port 8900 --latency 200
//   POST /__script   {"parametric": ["Paris"], "default": ["..."]}   replace reply queues (purpose = x-request-purpose);
//                    `rewrite` (a chat follow-up made self-contained) has no default: unscripted, it repeats the question
//                    {"byQuestion": {"<question>": {"final": ["Paris"]}}, ...}   replies per question: the request's
//                    question is the key that occurs latest in its messages (few-shot examples come before it)
//                    {"byTurn": {"agent": ["Action: wikisearch\nAction Input: {entity}", "...", "Final Answer: {entity}"]}}
//                    an agent conversation's reply by its turn (actions after the last `Question:` line); {question}
//                    and {entity} (the question's longest capitalised name) are filled in: scripted tool calls that
//                    differ per question, for soaks of many questions
//   POST /__faults   {"status": 429, "count": 1, "retryAfter": 1}    the next `count` requests fail with `status`
//   POST /__window   {"tokens": 8192}   a context window: a prompt plus max_tokens over it is refused with 400 in vLLM's
//                    words ("maximum context length is 8192 tokens"); counted in GET /__window ({tokens, refused})
//                    (also --context-tokens N; a token is counted per 3.2 characters, denser than English prose)
//   POST /__concurrency {"max": 2, "retryAfter": 1}   a request arriving while `max` others are being answered is
//                    refused with 429 and Retry-After (seconds), as a loaded server or a rate limit does; a request that
//                    arrives while an earlier Retry-After still runs is refused too and counted as a breach.
//                    GET /__concurrency → {max, retryAfter, peak, tooMany, insideRetryAfter, answered}
//                    (also --max-concurrent N --retry-after S)
//   --models a,b     serve only these model names: GET /v1/models lists them and a chat request for another name is
//                    answered 404 "model 'x' not found" (Ollama's words). Without it every name is answered and,
//                    since no list could name them all, GET /v1/models answers 404 as such servers do (so /healthz
//                    has nothing to check). --no-model-list: 404 even with --models.
//   POST /__latency  {"ms": 200, "chunkMs": 30}   time before the reply starts; a streamed reply (`stream: true`) then
//                    comes in 16-character chunks `chunkMs` apart, and a whole reply when its last chunk would
//                    (also --latency N --chunk-ms N; default 0: all at once)
//   POST /__trickle  {"bytes": 1, "count": 1}   the next `count` chat requests get a reply without end, written `bytes`
//                    bytes per write (one HTTP chunk each): a JSON completion whose content never closes, or for
//                    `stream: true` the same token event over and over; it stops when the client goes away
//   POST /__split    {"writes": 3, "count": 1}   the next `count` streamed replies write each SSE event in `writes` writes
//                    (the `data: ` prefix, the JSON, the blank line), yielding between them so each leaves as its own
//                    HTTP chunk: an honest server that flushes as it formats, many small pieces but no trickle
//   GET  /__requests                                                the requests received (purpose, headers, body, receivedAt, repliedAt)
//   POST /__reset
//   A reply in a queue may also be an object: held text, function calls (streamed in pieces too), and POST /__refuse
//   for servers that answer 400 to `tools` or `response_format` (openai-stub-tools.mjs says how)
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { callDeltas, refusal, replyParts, wholeMessage } from './openai-stub-tools.mjs';

const DEFAULT_REPLIES = {
  parametric: 'I think the answer is 42.',
  final: 'The answer is 42.',
  default: 'Thought: I know this.\nFinal Answer: 42',
};

/** The text of the last QUESTION block in a request (how every prompt of the service fences the question). */
const askedQuestion = (body) => {
  const text = (body.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
  const blocks = [...text.matchAll(/<<<QUESTION\n([\s\S]*?)\nQUESTION>>>/g)];
  return blocks.at(-1)?.[1].trim() ?? '';
};

/** Writes `head`, then `unit` over and over, `bytes` bytes per write, waiting for the socket to drain, until the client goes. */
const endless = (res, type, head, unit, bytes) => {
  res.writeHead(200, { 'content-type': type });
  const text = Buffer.from(unit);
  let at = 0;
  let gone = false;
  res.once('close', () => (gone = true));
  if (head) res.write(head);
  const pump = () => {
    while (!gone) {
      const piece = Buffer.alloc(bytes);
      for (let i = 0; i < bytes; i++, at = (at + 1) % text.length) piece[i] = text[at];
      if (!res.write(piece)) return void res.once('drain', pump);
    }
  };
  pump();
};

/** One SSE event in `writes` writes (`data: `, the JSON in the middle, the blank line), each its own chunk on the wire. */
const writeSplit = async (res, event, writes) => {
  const body = event.slice(6, -2);
  const step = Math.ceil(body.length / Math.max(1, writes - 2));
  const parts = ['data: ', ...(body.match(new RegExp(`[^]{1,${step}}`, 'g')) ?? []), '\n\n'];
  for (const part of parts) {
    if (res.destroyed) return;
    if (!res.write(part)) await new Promise((r) => res.once('drain', r));
    await new Promise((r) => setImmediate(r));
  }
};

export const startStub = async ({ port = 0, latencyMs = 0, chunkMs = 0, host = '127.0.0.1', contextTokens = 0, models, listModels = true, maxConcurrent = 0, retryAfter = 1, keepRequests = true } = {}) => {
  let queues = {};
  let faults = { status: 0, count: 0, retryAfter: undefined };
  let trickle = { bytes: 1, count: 0 };
  let split = { writes: 1, count: 0 };
  let refused = { tools: false, responseFormat: false };
  const requests = [];
  const state = { latencyMs, chunkMs, contextTokens, refused: 0 };
  // The server's own concurrency limit and what it saw of clients that ignore its Retry-After.
  const load = { max: maxConcurrent, retryAfter, inflight: 0, peak: 0, tooMany: 0, insideRetryAfter: 0, answered: 0, retryUntil: 0, largestPrompt: 0 };
  const loadStats = () => ({ max: load.max, retryAfter: load.retryAfter, peak: load.peak, tooMany: load.tooMany, insideRetryAfter: load.insideRetryAfter, answered: load.answered, refusedOverWindow: state.refused, largestPrompt: load.largestPrompt });
  /** Tokens a request asks for: its messages as a dense tokenizer counts them, plus the reply's max_tokens. */
  const requestedTokens = (body) =>
    Math.ceil((body.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n').length / 3.2) +
    Number(body.max_tokens ?? body.max_completion_tokens ?? 0);

  /** The scripted question a request is about: the key whose last occurrence in the messages comes last. */
  const questionOf = (body) => {
    const byQuestion = queues.byQuestion;
    if (!byQuestion) return undefined;
    const text = (body.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
    let best;
    let at = -1;
    for (const key of Object.keys(byQuestion)) {
      const i = text.lastIndexOf(key);
      if (i > at || (i === at && i >= 0 && key.length > best.length)) [best, at] = [key, i];
    }
    return best === undefined ? undefined : byQuestion[best];
  };

  /** The turn of an agent conversation: how many actions follow the last `Question:` line of the last message. */
  const turnOf = (body) => {
    const last = body.messages?.at(-1)?.content;
    const text = typeof last === 'string' ? last : JSON.stringify(last ?? '');
    const at = text.lastIndexOf('Question: ');
    const rest = at >= 0 ? text.slice(at) : text;
    return { question: at >= 0 ? rest.slice(10, (rest.indexOf('\n') + 1 || rest.length + 1) - 1).trim() : '', turn: (rest.match(/\nAction: /g) ?? []).length };
  };

  /** The longest run of capitalised words after the first word (a name), else the question's first words. */
  const entityOf = (question) => {
    const runs = question.replace(/[^\p{L}\p{N}\s'-]/gu, ' ').split(/\s+/).slice(1).join(' ').match(/(\p{Lu}[\p{L}\p{N}'-]*(\s+(of|the|de|and)?\s*\p{Lu}[\p{L}\p{N}'-]*)*)/gu) ?? [];
    const best = runs.sort((a, b) => b.length - a.length)[0];
    return (best ?? question.split(/\s+/).slice(0, 3).join(' ')).replace(/["\\]/g, '').trim() || 'Earth';
  };

  const replyFor = (purpose, body) => {
    const turns = queues.byTurn?.[purpose];
    if (turns?.length) {
      const { question, turn } = turnOf(body);
      const entity = entityOf(question);
      return turns[Math.min(turn, turns.length - 1)].replaceAll('{question}', question).replaceAll('{entity}', entity);
    }
    const own = questionOf(body);
    // An unscripted rewrite (a chat's follow-up made self-contained) keeps the question as asked, whatever `default` says.
    if (purpose === 'rewrite' && !own?.rewrite?.length && !queues.rewrite?.length) return askedQuestion(body);
    const q = own?.[purpose]?.length ? own[purpose] : queues[purpose]?.length ? queues[purpose] : queues.default;
    const next = q?.length ? (q.length > 1 ? q.shift() : q[0]) : DEFAULT_REPLIES[purpose] ?? DEFAULT_REPLIES.default;
    if (typeof next === 'string' && next.startsWith('echo:')) {
      const last = body.messages?.at(-1)?.content;
      return `${next.slice(5)}${typeof last === 'string' ? last : JSON.stringify(last)}`;
    }
    return next;
  };

  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url, 'http://stub');
    const json = (status, body, headers = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/__script') {
      queues = JSON.parse(raw || '{}');
      return json(200, { ok: true });
    }
    if (url.pathname === '/__faults') {
      faults = { status: 500, count: 1, ...JSON.parse(raw || '{}') };
      return json(200, { ok: true });
    }
    if (url.pathname === '/__requests') return json(200, requests);
    if (url.pathname === '/__split') {
      split = { writes: 3, count: 1, ...JSON.parse(raw || '{}') };
      return json(200, { ok: true });
    }
    if (url.pathname === '/__trickle') {
      trickle = { bytes: 1, count: 1, ...JSON.parse(raw || '{}') };
      return json(200, { ok: true });
    }
    if (url.pathname === '/__refuse') {
      refused = { tools: false, responseFormat: false, ...JSON.parse(raw || '{}') };
      return json(200, { ok: true });
    }
    if (url.pathname === '/__latency') {
      const asked = JSON.parse(raw || '{}');
      state.latencyMs = Number(asked.ms ?? 0);
      state.chunkMs = Number(asked.chunkMs ?? 0);
      return json(200, { ok: true });
    }
    if (url.pathname === '/__window') {
      if (req.method === 'POST') state.contextTokens = Number(JSON.parse(raw || '{}').tokens ?? 0);
      return json(200, { tokens: state.contextTokens, refused: state.refused });
    }
    if (url.pathname === '/__concurrency') {
      if (req.method === 'POST') {
        const set = JSON.parse(raw || '{}');
        Object.assign(load, { max: Number(set.max ?? 0), retryAfter: Number(set.retryAfter ?? 1), peak: 0, tooMany: 0, insideRetryAfter: 0, answered: 0, retryUntil: 0, largestPrompt: 0 });
      }
      return json(200, loadStats());
    }
    if (url.pathname === '/__reset') {
      state.refused = 0;
      queues = {};
      faults = { status: 0, count: 0 };
      trickle = { bytes: 1, count: 0 };
      split = { writes: 1, count: 0 };
      refused = { tools: false, responseFormat: false };
      requests.length = 0;
      return json(200, { ok: true });
    }
    if (url.pathname.endsWith('/models') && listModels && models) {
      return json(200, { object: 'list', data: models.map((id) => ({ id, object: 'model' })) });
    }
    if (!url.pathname.endsWith('/chat/completions') || req.method !== 'POST') return json(404, { error: { message: 'not found' } });

    const body = JSON.parse(raw || '{}');
    const purpose = req.headers['x-request-purpose'] ?? 'default';
    // When it came and when its answer left: what a caller spends between two model calls is visible from here.
    const entry = { purpose, headers: req.headers, body, receivedAt: Date.now() };
    if (keepRequests) requests.push(entry);
    res.once('finish', () => (entry.repliedAt = Date.now()));
    const now = Date.now();
    const inside = now < load.retryUntil;
    if (inside) load.insideRetryAfter += 1;
    if (load.max) {
      if (inside || load.inflight >= load.max) {
        load.tooMany += 1;
        // A request inside the window is told what is left of it; only a new overload starts a new window.
        if (!inside) load.retryUntil = now + load.retryAfter * 1000;
        const wait = Math.max(1, Math.ceil((load.retryUntil - now) / 1000));
        return json(429, { error: { message: `too many concurrent requests (at most ${load.max}); retry after ${wait} s`, type: 'rate_limit_error' } }, { 'retry-after': String(wait) });
      }
    }
    load.inflight += 1;
    load.peak = Math.max(load.peak, load.inflight);
    res.once('close', () => (load.inflight -= 1));
    if (faults.count > 0) {
      faults.count -= 1;
      const headers = faults.retryAfter !== undefined ? { 'retry-after': String(faults.retryAfter) } : {};
      // An injected Retry-After is a promise like any other: a request inside it is counted as a breach.
      if (faults.retryAfter !== undefined) load.retryUntil = Math.max(load.retryUntil, Date.now() + Number(faults.retryAfter) * 1000);
      return json(faults.status, { error: { message: `injected ${faults.status}` } }, headers);
    }
    if (trickle.count > 0) {
      trickle.count -= 1;
      const event = `data: ${JSON.stringify({ id: 'trickle', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: { content: 'token ' }, finish_reason: null }] })}\n\n`;
      if (body.stream) return endless(res, 'text/event-stream', '', event, trickle.bytes);
      return endless(res, 'application/json', '{"id":"trickle","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"', 'token ', trickle.bytes);
    }
    if (models && !models.includes(body.model)) return json(404, { error: { message: `model '${body.model}' not found` } });
    const asked = requestedTokens(body);
    load.largestPrompt = Math.max(load.largestPrompt, asked);
    if (state.contextTokens && asked > state.contextTokens) {
      state.refused += 1;
      const message = `This model's maximum context length is ${state.contextTokens} tokens. However, you requested ${asked} tokens. Please reduce the length of the messages or completion.`;
      return json(400, { object: 'error', message, type: 'BadRequestError', code: 400, error: { message, type: 'BadRequestError', code: 400 } });
    }
    const refusedWith = refusal(refused, body);
    if (refusedWith) return json(400, { object: 'error', message: refusedWith, type: 'BadRequestError', code: 400, error: { message: refusedWith, type: 'BadRequestError', code: 400 } });
    if (state.latencyMs) await new Promise((r) => setTimeout(r, state.latencyMs));
    const parts = replyParts(replyFor(purpose, body), requests.length);
    if (parts.delayMs) await new Promise((r) => setTimeout(r, parts.delayMs));
    let text = parts.content;
    for (const s of body.stop ?? []) {
      const i = text.indexOf(s);
      if (i >= 0) text = text.slice(0, i);
    }
    const usage = { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: Math.ceil(text.length / 4), total_tokens: 0 };
    const id = `chatcmpl-${requests.length}`;
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pieces = text.match(/.{1,16}/gs) ?? [''];
      const writes = split.count > 0 ? (split.count--, split.writes) : 1;
      for (const [i, piece] of pieces.entries()) {
        if (i > 0 && state.chunkMs) await new Promise((r) => setTimeout(r, state.chunkMs));
        if (res.destroyed) return;
        const event = `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`;
        if (writes === 1) res.write(event);
        else await writeSplit(res, event, writes);
      }
      for (const delta of callDeltas(parts.calls)) {
        if (state.chunkMs) await new Promise((r) => setTimeout(r, state.chunkMs));
        if (res.destroyed) return;
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
      }
      const finish = parts.calls.length ? 'tool_calls' : 'stop';
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
      load.answered += 1;
      return;
    }
    load.answered += 1;
    // A model writes its reply at the same pace whether it streams or not: the whole reply comes when its last chunk would.
    const pieces = Math.max(1, Math.ceil(text.length / 16));
    if (state.chunkMs && pieces > 1) await new Promise((r) => setTimeout(r, (pieces - 1) * state.chunkMs));
    json(200, {
      id,
      object: 'chat.completion',
      model: body.model ?? 'stub',
      choices: [{ index: 0, message: wholeMessage(text, parts.calls), finish_reason: parts.calls.length ? 'tool_calls' : 'stop' }],
      usage,
    });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const actual = server.address().port;
  return {
    port: actual,
    url: `http://${host}:${actual}/v1`,
    requests,
    setScript: (s) => (queues = s),
    /** The next `count` chat requests get a reply without end, `bytes` bytes per write (POST /__trickle). */
    trickle: (t = {}) => (trickle = { bytes: 1, count: 1, ...t }),
    /** The next `count` streamed replies write each event in `writes` writes (POST /__split). */
    split: (t = {}) => (split = { writes: 3, count: 1, ...t }),
    /** Requests carrying `tools` / `response_format` get a 400 (POST /__refuse). */
    refuse: (r = {}) => (refused = { tools: false, responseFormat: false, ...r }),
    /** The server's concurrency limit and the clients' breaches of its Retry-After (see POST /__concurrency). */
    load: loadStats,
    close: () => new Promise((r) => server.close(r)),
  };
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : fallback;
  };
  const stub = await startStub({
    port: Number(arg('port', 8900)),
    latencyMs: Number(arg('latency', 0)),
    chunkMs: Number(arg('chunk-ms', 0)),
    contextTokens: Number(arg('context-tokens', 0)),
    models: arg('models', undefined)?.split(','),
    listModels: !process.argv.includes('--no-model-list'),
    maxConcurrent: Number(arg('max-concurrent', 0)),
    retryAfter: Number(arg('retry-after', 1)),
    // A long soak would keep every request's messages; --forget-requests keeps only the counts.
    keepRequests: !process.argv.includes('--forget-requests'),
  });
  console.log(`OpenAI-compatible stub on ${stub.url}`);
}
