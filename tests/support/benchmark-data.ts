import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DATA_MARK } from '../../cli/data-skips.mjs';

/**
 * Where the real benchmark files are: BENCHMARK_DATA (absolute, or relative to the repository), by default
 * ../shared/data beside the checkout. Tests that need them skip without them, and their titles carry DATA_MARK so
 * `npm test` can say in one line how many skipped and where it looked (cli/test.mjs).
 */
export const DATA_DIR = resolve(import.meta.dirname, '../..', process.env.BENCHMARK_DATA || '../shared/data');

/** A path inside the data folder. */
export const dataPath = (relative: string) => resolve(DATA_DIR, relative);
export const hasData = (relative = '.') => existsSync(dataPath(relative));

/** A suite title marked as needing the data folder. */
export const needsData = (title: string) => `${title} ${DATA_MARK}`;
