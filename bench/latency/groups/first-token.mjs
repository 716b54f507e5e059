// bench/latency group `first-token` (issue 25): time to the first token of the answer against time to the whole
// answer, with a stub model that waits a fixed time before its first token and then streams 16-character chunks at a
// fixed pace. Closed-book runs (the answer is the run's one model call), followed over SSE; the same question asked
// as JSON, which waits for the end, for comparison. Medians of RUNS sequential runs.
const RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 5);
const FIRST_TOKEN_MS = 300;
const CHUNK_MS = 40;
// 256 characters: 16 chunks, so the reply takes 300 + 15 × 40 = 900 ms at the model.
const ANSWER = 'The Amazon is the largest rainforest on Earth, spanning about 5.5 million square kilometres across nine countries, with Brazil holding roughly sixty percent of it; it shapes the regional rainfall and stores a vast amount of carbon in its trees and soil.'.padEnd(256, '.');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default {
  name: 'first-token',
  about: `first answer token vs whole answer, model ${FIRST_TOKEN_MS} ms to its first token then a chunk every ${CHUNK_MS} ms, median of ${RUNS} runs`,
  order: 30,
  async run(ctx) {
    await ctx.stub.script({ parametric: [ANSWER] });
    await ctx.stream({ question: 'warm up', mode: 'parametric' }, () => {});
    await fetch(ctx.stub.url.replace('/v1', '/__latency'), { method: 'POST', body: JSON.stringify({ ms: FIRST_TOKEN_MS, chunkMs: CHUNK_MS }) });
    const firstToken = [];
    const answerEvent = [];
    const reported = [];
    const json = [];
    for (let i = 0; i < RUNS; i++) {
      let first = 0;
      let answer = 0;
      let done;
      await ctx.stream({ question: `rainforest ${i}`, mode: 'parametric' }, (name, data, ms) => {
        if (name === 'delta' && data.answer && !first) first = ms;
        if (name === 'answer') answer = ms;
        if (name === 'done') done = data;
      });
      if (!first || done?.status !== 'succeeded') throw new Error(`run ${i}: no answer delta (status ${done?.status})`);
      firstToken.push(first);
      answerEvent.push(answer);
      reported.push(done.timings.firstAnswerTokenMs);
      json.push((await ctx.answer({ question: `rainforest json ${i}`, mode: 'parametric' })).ms);
    }
    const [t, a, r, j] = [median(firstToken), median(answerEvent), median(reported), median(json)];
    ctx.log(`  streamed: first answer token ${t.toFixed(0)} ms (run's timings.firstAnswerTokenMs ${r} ms), answer event ${a.toFixed(0)} ms; JSON answer ${j.toFixed(0)} ms`);
    return [
      { figure: 'first answer token, client (SSE delta)', value: `${t.toFixed(0)} ms (model's first token at ${FIRST_TOKEN_MS} ms)` },
      { figure: 'timings.firstAnswerTokenMs (run JSON)', value: `${r} ms` },
      { figure: 'whole answer, client (SSE answer event / JSON)', value: `${a.toFixed(0)} / ${j.toFixed(0)} ms` },
      { figure: 'first answer token / whole answer', value: `×${(t / a).toFixed(2)}` },
    ];
  },
};
