// How many tests skipped because the benchmark data folder lacks their files: their titles carry DATA_MARK
// (tests/support/benchmark-data.ts), and vitest's JSON report says which skipped. `npm test` prints dataSkipLine.
export const DATA_MARK = '[benchmark data]';

/** Skipped tests needing the data, counted in a vitest JSON report (its parsed object). */
export const countDataSkips = (report) =>
  (report?.testResults ?? [])
    .flatMap((r) => r.assertionResults ?? [])
    .filter((a) => a.status !== 'passed' && a.status !== 'failed' && String(a.fullName).includes(DATA_MARK)).length;

/** The one line `npm test` prints, or '' when nothing skipped for want of data. */
export const dataSkipLine = (skipped, dataDir) =>
  skipped
    ? `${skipped} of them skipped for missing benchmark data: looked in ${dataDir} (set BENCHMARK_DATA to the folder with mintaka/, qald9plus/, compmix/, hybridqa/, mmqa/, crag/)`
    : '';
