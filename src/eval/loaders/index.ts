import type { HybridQAReference } from '../metrics/hybridqa';
import type { Benchmark, EvalItem } from '../types';
import { loadCompMix } from './compmix';
import { loadCrag } from './crag';
import { loadHybridQA } from './hybridqa';
import { loadMintaka } from './mintaka';
import { loadMMQA } from './mmqa';
import { loadQald9Plus } from './qald9plus';

export { parseHybridQAReference } from './hybridqa';

/** Parses a benchmark file's (already decompressed) text into evaluation items. */
export const loadBenchmark = (benchmark: Benchmark, text: string, opts: { reference?: HybridQAReference; language?: string } = {}): EvalItem[] => {
  switch (benchmark) {
    case 'mintaka':
      return loadMintaka(text);
    case 'qald9plus':
      return opts.language ? loadQald9Plus(text, opts.language, true) : loadQald9Plus(text);
    case 'compmix':
      return loadCompMix(text);
    case 'hybridqa':
      return loadHybridQA(text, opts.reference);
    case 'mmqa':
      return loadMMQA(text);
    case 'crag':
      return loadCrag(text);
  }
};
