/** Types for data-skips.mjs. */
export const DATA_MARK: string;
export function countDataSkips(report: unknown): number;
export function dataSkipLine(skipped: number, dataDir: string): string;
