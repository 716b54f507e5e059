import { afterAll, beforeAll } from 'vitest';
import { startDev, type DevServer } from './dev-server.mjs';
import { startStub, type Stub } from './openai-stub.mjs';

/** The stub and the dev server a file's tests talk to, once `beforeAll` has started them. */
export interface StubbedDev {
  stub: Stub;
  dev: DevServer;
}

/**
 * `npm run dev` answering from the OpenAI-compatible model stub on 127.0.0.1, up for one test file: started before
 * its tests and stopped after them. Retries are off, so a refusal the stub is told to give reaches the run at once.
 */
export const devOnStub = (stubOptions?: Parameters<typeof startStub>[0]): StubbedDev => {
  const live = {} as StubbedDev;
  beforeAll(async () => {
    live.stub = await startStub(stubOptions);
    live.dev = await startDev({ vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: live.stub.url, LLM_MODEL: 'stub', LLM_MAX_RETRIES: '0' } });
  }, 180_000);
  afterAll(async () => {
    await live.dev?.stop();
    await live.stub?.close();
  });
  return live;
};
