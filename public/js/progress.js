import { api } from './api.js';

const POLL_MS = 2000;

const clock = (ms) => {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
};

const of = (n, max) => (max ? `${n} of ${max}` : `${n}`);

/**
 * Live progress of a running run: elapsed time every second, and the run's step count, model calls and tokens
 * against its limits (polled from GET /v1/runs/{id}, since the event stream carries usage only at the end).
 */
export const createProgress = ({ runId, limits = {}, meter }) => {
  const started = Date.now();
  let usage = { llmCalls: 0, promptTokens: 0, completionTokens: 0 };
  let steps = 0;
  let stopped = false;
  const render = (elapsedMs = Date.now() - started) => {
    meter.textContent = [
      clock(elapsedMs),
      `step ${of(steps, limits.maxSteps)}`,
      `${of(usage.llmCalls ?? 0, limits.maxLLMCalls)} model calls`,
      `${((usage.promptTokens ?? 0) + (usage.completionTokens ?? 0)).toLocaleString()} tokens`,
    ].join(' · ');
  };
  const tick = setInterval(() => render(), 1000);
  const poll = async () => {
    while (!stopped && runId) {
      try {
        const view = await api('GET', `/v1/runs/${encodeURIComponent(runId)}`);
        if (stopped) return;
        usage = view.usage ?? usage;
        steps = view.timings?.steps ?? steps;
        render();
      } catch {
        // Progress is a nicety: the event stream reports real failures.
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };
  render();
  poll();
  const stop = () => {
    stopped = true;
    clearInterval(tick);
  };
  return {
    stop,
    finish: (done) => {
      stop();
      usage = done.usage ?? usage;
      steps = done.timings?.steps ?? steps;
      render(done.timings?.totalMs ?? Date.now() - started);
    },
  };
};
