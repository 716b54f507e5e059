import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `// @module-tag slow` at the top of a test file: it starts a dev server, wrangler, the eval CLI or a browser, or
 * waits out real holds and retries. `npm run test:quick` leaves those files out (cli/test.mjs); `npm test` runs all.
 */
const tags = [{ name: 'slow', description: 'starts servers or CLIs, or waits out real time; left out of npm run test:quick' }];

/** The real benchmark files (tests/support/benchmark-data.ts); Worker tests read them through this alias. */
const DATA_DIR = resolve(import.meta.dirname, process.env.BENCHMARK_DATA || '../shared/data');

// Two projects: code that ships in the Worker is tested inside workerd; the CLI,
// the browser suite and the wrangler dry-runs are Node programs and are tested in Node.
export default defineConfig({
  test: {
    // Most files wait more than they compute (model stubs, dev servers, holds, the CLI in a child process), so two
    // run at once even on two cores; vitest's default leaves one core free, which on two cores ran one file at a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        plugins: [
          cloudflareTest({
            remoteBindings: false,
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              // A short heartbeat so a test can see it; streams in other tests simply carry a few more comments. Live
              // evidence in tests goes (to stand-ins) as a client that names its contact: one known only by its IP gets
              // Wikimedia's 10 requests a minute, and the gate would hold the tests to 9.
              bindings: { LLM_PROVIDER: 'scripted', TEST_MODE: 'true', SSE_HEARTBEAT_MS: '300', WIKIMEDIA_CONTACT: 'tests@example.org' },
            },
          }),
        ],
        resolve: { alias: { '@benchmark-data': DATA_DIR } },
        test: {
          name: 'workers',
          tags,
          // Pre-bundle the big dependencies: loaded file by file, zod and openai alone cost seconds per test file.
          deps: {
            optimizer: {
              ssr: { enabled: true, include: ['zod', 'openai', 'hono', 'htmlparser2'] },
            },
          },
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/node/**'],
          // Stand-ins served over real HTTP by Node (workerd reaches them on 127.0.0.1); tests read their URLs with inject().
          globalSetup: ['tests/support/standins-setup.ts'],
          // One workerd runtime per vitest worker for all the files it runs, rather than one per file: starting workerd
          // and loading the Worker (snapshot, oxigraph, QuickJS, the bundle) took 2–3 s of CPU before each of ~100 files.
          // Storage, caches and module state therefore carry from file to file; tests/support/workers-setup.ts resets
          // what would otherwise decide a later file's outcome, and tests use their own run ids and questions.
          isolate: false,
          setupFiles: ['tests/support/workers-setup.ts'],
          // A file's first test pays for loading the Worker (snapshot, sandbox, bundle) into a fresh isolate: seconds on
          // an idle machine, but 30–45 s was measured with the suite sharing 2 cores at a load of 10. The limit is a
          // safety net against a hang, not a speed check.
          testTimeout: 90_000,
        },
      },
      {
        // Node tests import Worker modules that import SQL, prompt and snapshot files as text (wrangler's Text rule).
        plugins: [
          {
            name: 'text-modules',
            enforce: 'pre',
            transform: (code: string, id: string) => (/\.(sql|txt|md|ttl)$/.test(id) ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined),
          },
        ],
        test: {
          name: 'node',
          tags,
          environment: 'node',
          include: ['tests/node/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
