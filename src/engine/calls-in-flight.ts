import type { LLM, Purpose } from '../llm/types';

/** A model call a run is waiting on now: what `waitingOn` in the run JSON lists while the run is unfinished. */
export interface CallInFlight {
  kind: 'model';
  purpose: Purpose;
  model: string;
  /** When the call began (epoch ms): the wait at the model's gate, the retries and the reply's reading included. */
  since: number;
}

/**
 * The model calls of a run under way, kept by its object while it steps. Without it a run whose first model call
 * took a minute showed nothing but `queued` and no steps: a step is stored only once it ends.
 */
export class CallsInFlight {
  private readonly calls = new Map<number, CallInFlight>();
  private count = 0;

  /** `inner` with each call listed while it lasts. */
  watch(inner: LLM): LLM {
    const calls = this.calls;
    const next = () => this.count++;
    return {
      provider: inner.provider,
      model: inner.model,
      acceptsImages: inner.acceptsImages,
      ...(inner.servedModels ? { servedModels: inner.servedModels.bind(inner) } : {}),
      async chat(request, scope) {
        const id = next();
        calls.set(id, { kind: 'model', purpose: request.purpose, model: request.model ?? inner.model, since: Date.now() });
        try {
          return await inner.chat(request, scope);
        } finally {
          calls.delete(id);
        }
      },
    };
  }

  /** The calls under way, oldest first. */
  list(): CallInFlight[] {
    return [...this.calls.values()];
  }
}
