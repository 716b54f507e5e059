import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';

/**
 * A refusal the caller should read: its HTTP status, a stable code and a message that says what to change. The HTTP
 * routes answer it as `{error: {code, message}}` with that status; MCP as a tool result marked isError.
 */
export class HttpError extends Error {
  constructor(readonly status: ContentfulStatusCode, readonly code: string, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
  }
}

const describeIssue = (issue: z.core.$ZodIssue) => {
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
};

/** The zod issues of a rejected request in one line: "field.path: message; …" (at most five). */
export const describeIssues = (issues: readonly z.core.$ZodIssue[]) => issues.slice(0, 5).map(describeIssue).join('; ');
