/** Types for deploy-resources.mjs (the resource, binding and contact checks of `npm run deploy`). */
export interface WranglerResources {
  name?: string;
  ai?: { binding?: string };
  d1_databases?: Array<{ binding: string; database_name?: string; database_id?: string }>;
  vectorize?: Array<{ binding: string; index_name?: string }>;
  r2_buckets?: Array<{ binding: string; bucket_name?: string }>;
  durable_objects?: { bindings?: Array<{ name: string; class_name: string }> };
  migrations?: Array<{ tag: string; new_sqlite_classes?: string[]; new_classes?: string[]; deleted_classes?: string[]; renamed_classes?: Array<{ from: string; to: string }> }>;
}
export interface PlaceholderReport {
  placeholders: string[];
  commands: string[];
}
export interface BindingEntry {
  binding: string;
  why: string;
  lines: string[];
}
export interface BindingReport {
  missing: BindingEntry[];
  notes: BindingEntry[];
}
export const DURABLE_OBJECTS: ReadonlyArray<{ name: string; className: string; why: string }>;
export function placeholderReport(config: WranglerResources, env: string | undefined): PlaceholderReport;
export function placeholderLines(report: PlaceholderReport, options: { what: string; dryRun: boolean }): string[];
export function bindingReport(config: WranglerResources, env: string | undefined, vars: Record<string, string>): BindingReport;
export function bindingLines(report: BindingReport, options: { what: string; env: string | undefined; configFile: string }): string[];
export function contactLines(
  parsed: { EVIDENCE: string; WIKIMEDIA_CONTACT?: string },
  hosts: string[],
  options: { what: string; env: string | undefined; configFile: string; dryRun: boolean },
): string[];
export function summaryLine(config: WranglerResources, env: string | undefined, vars: Record<string, string>, options: { what: string }): string;
