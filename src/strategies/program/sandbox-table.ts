/** The table as the generated program receives it (rows keyed by unique column name); built by input.ts. */

/** A cell as the program sees it: enough to pass back to `extract_info`. */
export interface SandboxCell {
  text: string;
  links: string[];
  row: number;
  column: string;
}

export interface SandboxTable {
  title: string;
  columns: string[];
  rows: Record<string, SandboxCell>[];
}
