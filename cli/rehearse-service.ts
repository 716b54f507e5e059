// The service a rehearsal runs against: `npm run dev` (tests/support/dev-server.mjs) whose model is the
// OpenAI-compatible stub (tests/support/openai-stub.mjs) scripted per question with the gold answers.
import { startDev } from '../tests/support/dev-server.mjs';
import { startStub } from '../tests/support/openai-stub.mjs';

export interface RehearsalService {
  url: string;
  setScript: (script: Record<string, unknown>) => void;
  stop: () => Promise<void>;
}

export const startRehearsalService = async (vars: Record<string, string> = {}): Promise<RehearsalService> => {
  const stub = await startStub({ port: 0 });
  try {
    const dev = await startDev({
      vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'gold-stub', LLM_MAX_RETRIES: '0', RATE_LIMIT_PER_MINUTE: '1000000', ...vars },
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
