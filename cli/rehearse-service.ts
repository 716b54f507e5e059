// The service a rehearsal runs against: `npm run dev` (tests/support/dev-server.mjs) whose model is the
// OpenAI-compatible stub (tests/support/openai-stub.mjs) scripted per question with the gold answers.
import { createServer } from 'node:net';
import { freePort, startDev } from '../tests/support/dev-server.mjs';
import { startStub } from '../tests/support/openai-stub.mjs';

export interface RehearsalService {
  url: string;
  setScript: (script: Record<string, unknown>) => void;
  stop: () => Promise<void>;
}

/** `--port N` for the rehearsal's server: a whole number 1–65535 that nothing listens on yet, or undefined (any free port). */
export const rehearsalPort = async (port: number | undefined): Promise<number | undefined> => {
  if (port === undefined) return undefined;
  const free = await new Promise<boolean>((ok) => {
    const s = createServer();
    s.once('error', () => ok(false));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(true)));
  });
  if (!free) throw new Error(`--port ${port} is in use; pick another, or leave --port out for any free port`);
  return port;
};

/** A free port for the inspector other than `port` (still free until the server binds it, so freePort may offer it). */
const inspectorPort = async (port: number): Promise<number> => {
  const first = await freePort();
  return first === port ? freePort() : first;
};

/** Starts the stub and `npm run dev` against it, on `port` when given (its inspector on any free port). */
export const startRehearsalService = async (vars: Record<string, string> = {}, port?: number): Promise<RehearsalService> => {
  const stub = await startStub({ port: 0 });
  try {
    const dev = await startDev({
      vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'gold-stub', LLM_MAX_RETRIES: '0', RATE_LIMIT_PER_MINUTE: '1000000', ...vars },
      ...(port ? { ports: [port, await inspectorPort(port)] as [number, number] } : {}),
    });
    return {
      url: dev.url,
      setScript: (s) => stub.setScript(s),
      stop: async () => {
        await dev.stop();
        await stub.close();
      },
    };
  } catch (e) {
    await stub.close();
    throw e;
  }
};
