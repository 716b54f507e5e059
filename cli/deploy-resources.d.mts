/** Types for deploy-resources.mjs (the placeholder check of `npm run deploy`). */
export interface WranglerResources {
  d1_databases?: Array<{ binding: string; database_name?: string; database_id?: string }>;
  vectorize?: Array<{ binding: string; index_name?: string }>;
  r2_buckets?: Array<{ binding: string; bucket_name?: string }>;
}
export interface PlaceholderReport {
  placeholders: string[];
  commands: string[];
}
export function placeholderReport(config: WranglerResources, env: string | undefined): PlaceholderReport;
export function placeholderLines(report: PlaceholderReport, options: { what: string; dryRun: boolean }): string[];
