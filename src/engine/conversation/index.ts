import type { RunRequest, Strategy } from '../types';
import { rewriteQuestion } from './rewrite';

export { standaloneFrom } from './rewrite';

/**
 * A conversation run's state: the standalone question once the rewrite step has made it, then the wrapped
 * strategy's own state. Stored after every step like any state, so a resumed or forked run goes on from it.
 */
export interface ConversationState<S = unknown> {
  standalone: string | null;
  started?: boolean;
  inner?: S;
}

const isConversationState = (state: unknown): state is ConversationState =>
  !!state && typeof state === 'object' && 'standalone' in state && (typeof state.standalone === 'string' || state.standalone === null);

/**
 * A strategy for a run that has earlier chat turns: its first step is the rewrite (one model call, purpose
 * `rewrite`), and every later step is the wrapped strategy's, which sees the standalone question as
 * `ctx.request.question` (the run engine builds each step's request with {@link requestForStep}). A run without
 * earlier turns is never wrapped, so it makes no extra call.
 */
export const withConversation = <S>(inner: Strategy<S>): Strategy<ConversationState<S>> => ({
  mode: inner.mode,
  description: inner.description,
  options: inner.options,
  tools: inner.tools,
  checkContext: inner.checkContext?.bind(inner),
  start: () => ({ standalone: null }),
  async step(state, ctx) {
    if (state.standalone === null) {
      const { standalone, events } = await rewriteQuestion(ctx);
      return { state: { standalone }, events };
    }
    const innerState = state.started ? (state.inner as S) : await inner.start(ctx);
    const out = await inner.step(innerState, ctx);
    return { ...out, state: { standalone: state.standalone, started: true, inner: out.state } };
  },
  partial: (state) => (state.started && inner.partial ? inner.partial(state.inner as S) : null),
});

/** The strategy a stored run runs: its mode's, behind the rewrite step when the run has earlier turns. */
export const forRequest = <S>(strategy: Strategy<S> | undefined, request: RunRequest): Strategy<unknown> | undefined =>
  strategy && request.conversation?.length ? (withConversation(strategy) as Strategy<unknown>) : (strategy as Strategy<unknown> | undefined);

/** The standalone question a conversation run answers, once its rewrite step has run; null otherwise. */
export const standaloneQuestionOf = (request: RunRequest, state: unknown): string | null =>
  request.conversation?.length && isConversationState(state) ? state.standalone : null;

/** The request a step of the run sees: after the rewrite, its question is the standalone one. */
export const requestForStep = (request: RunRequest, state: unknown): RunRequest => {
  const standalone = standaloneQuestionOf(request, state);
  return standalone === null ? request : { ...request, question: standalone };
};
