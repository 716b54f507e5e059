/**
 * What a strategy claims its answer rests on, and what the engine cites for it (src/engine/attribution): the records
 * a claim names, the parts of them it read, and each citation with its quote and support grade.
 */

/**
 * A source's claim, declared by a strategy: this answer rests on these records of the run's evidence (keys of
 * the evidence recording, or `context …` keys for the caller's table, passages and pages). The engine verifies it.
 */
export interface Claim {
  source: string;
  answer: string;
  keys: string[];
  /** Counts towards agreement only when no other source is supported (an agent's answer derived from the sources). */
  fallback?: boolean;
  /**
   * A computed answer (a calculator's result): verified when every operand occurs in a cited record, since the
   * computation itself ran in the sandbox. The answer is then not looked for in the records.
   */
  operands?: string[];
  /**
   * What the strategy read to reach its answer, where it knows: program mode's table cells the program read, and
   * the passages `extract_info` read. A table citation supports the answer only in a cell listed here.
   */
  read?: ClaimReads;
}

/** The parts of the cited records a strategy read: table cells (row index, cell text) and passage names. */
export interface ClaimReads {
  cells?: { row: number; text: string }[];
  passages?: string[];
}

/**
 * How a verified citation backs the answer: `supports` when the record states the answer about what the question
 * asks (docs/CONFIDENCE.md gives the rules), `mentions` when the answer only occurs in it.
 */
export type Support = 'supports' | 'mentions';

/** One piece of evidence an answer cites; `verified` when the record is this run's and the answer occurs in it. */
export interface Citation {
  source: string;
  key: string;
  kind: string;
  url?: string;
  /** The short span of the record that contains the answer (absent when not verified). */
  quote?: string;
  verified: boolean;
  /** Verified citations only: whether the record supports the answer or only mentions it. */
  support?: Support;
  /** Set when `options.supportCheck: "model"` graded it: the model's verdict replaced the structural one. */
  supportBy?: 'model';
}
