import type { Context } from 'hono';
import { HttpError } from '../runs/errors';

export { HttpError } from '../runs/errors';

export const errorBody = (code: string, message: string) => ({ error: { code, message } });

export const errorResponse = (c: Context, err: HttpError) => {
  for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  return c.json(errorBody(err.code, err.message), err.status);
};
