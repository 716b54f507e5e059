import { bundle } from '../../generated/bundle';

/** Variants with worked programs of their own; any other variant is shown HybridQA's. */
const LIBRARIES = ['hybridqa', 'mmqa'];

/** The team's worked examples (table, question, program), in file order; `fewshot/<variant>/*.txt`. */
export const programExamples = (limit: number, variant = 'hybridqa'): string[] =>
  bundle.fewshot
    .filter((f) => f.file.replace(/\\/g, '/').startsWith(`fewshot/${LIBRARIES.includes(variant) ? variant : 'hybridqa'}/`))
    .map((f) => f.text.trim())
    .slice(0, Math.max(0, limit));
