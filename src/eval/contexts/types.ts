/**
 * The `context` program mode takes (POST /v1/answer, `src/runs/request-schema.ts`): a table whose cells keep their links,
 * the passages those links lead to, and images by link. Built by the benchmark context builders beside this file.
 */
export interface TableCell {
  text: string;
  links: string[];
}

export interface TableContext {
  table: { title?: string; columns: string[]; rows: TableCell[][] };
  /** Link → passage text. */
  passages: Record<string, string>;
  /** Link → image URL (a `data:` URL for local files), read by a vision model when one is configured. */
  images?: Record<string, string>;
}
