// Runs before every file of the workers project. The files share one workerd runtime per vitest worker
// (vitest.config.ts: `isolate: false`, so the Worker is loaded once, not once per file); what one file leaves in that
// runtime must not decide another file's outcome. Three things would:
import '@hono/zod-openapi';
import { env, listDurableObjectIds, runInDurableObject } from 'cloudflare:test';
import { beforeAll } from 'vitest';
import { installTestVars } from '../../src/config-test-vars';

// 1. zod schemas gain `.openapi()` (which /mcp's tool listing and /openapi.json use) when @hono/zod-openapi is first
//    imported, and a zod 4 schema takes the methods it gets when it is made. In the Worker the routes import it before
//    any tool schema is made; here a file that imports the tools without the app could otherwise be the first to
//    make them, and every later file in the runtime would get schemas without it. Imported above, first.

// 2. The politeness gates are shared by every run: a hold a file provoked (a Retry-After of an hour, a lag answer),
//    the answers a gate keeps for the next run and the minute's request counts would carry into the next file. Each
//    file starts with gates that have seen nothing, as it would in a runtime of its own. Runs and D1 rows stay: tests
//    give their runs their own ids and questions.
beforeAll(async () => {
  const gates = env.POLITENESS_GATE;
  for (const id of await listDurableObjectIds(gates)) {
    // Storage emptied, then the instance dropped with its in-memory copy of that state; the next request to the gate
    // makes a fresh one. abort() rejects the call that made it, which is the point (workerd logs it as an uncaught
    // `outputGateBroken`; `npm test` counts it with the other teardown messages). Eviction instead would wait for a
    // previous file's abandoned waiters, up to 30 s.
    await runInDurableObject(gates.get(id), async (_instance: unknown, state: DurableObjectState) => {
      await state.storage.deleteAll();
      await state.storage.sync();
      state.abort();
    }).catch(() => undefined);
  }
  // 3. Vars a file laid over the Worker's (installTestVars: live evidence, a stand-in's URL) are module state: a file
  //    that failed before its own clean-up would hand them to the next. Each file starts with the Worker's own.
  installTestVars();
}, 60_000);
