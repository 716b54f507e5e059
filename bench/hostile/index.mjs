#!/usr/bin/env node
// bench/hostile (issue 14): every hostile case against a real `npm run dev` (its own state, free ports) with the
// OpenAI-compatible stub as the model. Per case: time to an answer, workerd RSS before/peak/after (VmRSS from /proc),
// the slowest /healthz while it ran, and a normal request measured just before it and just after it.
//
//   npm run bench:hostile                 # all groups
//   npm run bench:hostile -- requests     # one group: requests (pages, sandbox, bodies, auth), sparql, sandbox-cpu
//                                         # (built-ins in model-written code), archives, live, clients (dropped bodies,
//                                         # resets), origins (other sites' pages), deadline (tools), model, upstream
//                                         # (every upstream's bodies in tiny pieces, lists longer than asked), gates
//                                         # (holds, fairness, cached errors), readers (clients that never read), cancels
//                                         # (MCP calls let go), hidden-text, budget (a per-minute budget shared by a
//                                         # flooding key and a sequential one), health (/healthz while 200 runs wait),
//                                         # round-four (issue 41's cases: rewrite, Retry-After, pieces, verdicts, clear text)
//
// A group is { run({ url, pid, stub, key }) → rows (shape in measure.mjs), setup?() → { vars, close } }. The
// requests, sparql, sandbox-cpu, archives and clients groups share one dev server; live (setup: a hostile Wikimedia stand-in), origins (an
// open server: no API_KEYS), deadline (TOOL_TIMEOUT_MS lowered) and model (a hostile model server) each get their own.
// BENCH_PORTS=a,b,c,d pins the ports (stub, dev server, its inspector, the hostile stand-ins) on a shared machine.
// The dev server runs with an API key, so every request from here carries it unless a case sends its own
// Authorization header; RATE_LIMIT_PER_MINUTE is raised so the bench's own traffic is not throttled.
import { startStub } from '../../tests/support/openai-stub.mjs';
import { startDev } from '../../tests/support/dev-server.mjs';
import { runArchiveCases } from './archives.mjs';
import { clientsGroup, deadlineGroup, originsGroup } from './clients.mjs';
import { liveGroup } from './live.mjs';
import { modelGroup } from './model.mjs';
import { printRows } from './measure.mjs';
import { readersGroup } from './readers.mjs';
import { cancelsGroup } from './cancels.mjs';
import { hiddenTextGroup } from './hidden-text.mjs';
import { budgetGroup } from './budget.mjs';
import { healthGroup } from './health.mjs';
import { roundFourGroup } from './round-four.mjs';
import { runRequestCases } from './requests.mjs';
import { runSandboxCpuCases } from './sandbox-cpu.mjs';
import { runSparqlCases, workerdPid } from './sparql.mjs';
import { upstreamGroup } from './upstream.mjs';

// A group with `setup` gets a dev server of its own, started with the variables setup returns (live evidence
// pointed at a hostile stand-in); the others share one. One server at a time, so the workerd RSS is the right one.
const GROUPS = {
  requests: { run: runRequestCases },
  sparql: { run: runSparqlCases },
  'sandbox-cpu': { run: runSandboxCpuCases },
  archives: { run: runArchiveCases },
  clients: clientsGroup,
  live: liveGroup,
  origins: originsGroup,
  deadline: deadlineGroup,
  model: modelGroup,
  upstream: upstreamGroup,
  gates: (await import('./gates.mjs')).gatesGroup,
  readers: readersGroup, cancels: cancelsGroup, 'hidden-text': hiddenTextGroup,
  budget: budgetGroup,
  health: healthGroup,
  'round-four': { run: roundFourGroup.run },
};
const wanted = process.argv.slice(2).filter((a) => GROUPS[a]);
/** The key the current group's requests carry (one per group, see below) and the per-key limit the server is given. */
const key = { value: '', limit: 120 };
const selected = Object.entries(GROUPS).filter(([name]) => !wanted.length || wanted.includes(name));
const batches = [selected.filter(([, g]) => !g.setup), ...selected.filter(([, g]) => g.setup).map((entry) => [entry])].filter((b) => b.length);

const ports = process.env.BENCH_PORTS?.split(',').map(Number);
const stub = await startStub({ port: ports?.[0] ?? 0 });
let devUrl = '';
const plainFetch = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  if (!devUrl || !String(input?.url ?? input).startsWith(devUrl)) return plainFetch(input, init);
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${key.value}`);
  return plainFetch(input, { ...init, headers });
};
const rows = [];
const failed = [];
try {
  for (const batch of batches) {
    const own = batch[0][1].setup ? await batch[0][1].setup() : { vars: {}, close: async () => {} };
    // A key per group: groups that share a server would otherwise share one rate-limit bucket, and the later ones
    // would be refused for the earlier ones' traffic rather than for anything they did.
    const groupKeys = batch.map(([name]) => `bench-${name}-${crypto.randomUUID()}`);
    const dev = await startDev({
      ports: ports && [ports[1], ports[2]],
      ...(process.env.BENCH_STATE_DIR ? { stateDir: process.env.BENCH_STATE_DIR } : {}),
      vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub', API_KEYS: groupKeys.join(','), RATE_LIMIT_PER_MINUTE: String(key.limit), ...own.vars },
    });
    devUrl = dev.url;
    try {
      const pid = workerdPid();
      console.log(`bench/hostile ${batch.map(([n]) => n).join(', ')} against ${dev.url} (workerd pid ${pid ?? 'unknown: RSS not measured'}), model: OpenAI-compatible stub, ${new Date().toISOString()}`);
      for (const [i, [name, group]] of batch.entries()) {
        key.value = groupKeys[i];
        try {
          rows.push(...(await group.run({ url: dev.url, pid, stub, key })));
        } catch (err) {
          console.error(`bench/hostile ${name} failed: ${err.stack}\n--- dev server log (tail) ---\n${dev.log().slice(-4000)}`);
          failed.push(name);
          process.exitCode = 1;
        }
      }
    } finally {
      await dev.stop();
      await own.close();
    }
  }
  printRows(rows);
  if (failed.length) console.log(`FAILED (no figures, see the error above): ${failed.join(', ')}`);
} finally {
  await stub.close();
}
