import type { Context } from 'hono';
import { HttpError } from '../runs/errors';
import { publicMessage } from '../text/public-message';

export { HttpError } from '../runs/errors';

/** Every error a client receives, in one shape; its message never carries a stack or a path of the machine. */
export const errorBody = (code: string, message: string) => ({ error: { code, message: publicMessage(message) } });

export const errorResponse = (c: Context, err: HttpError) => {
  for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  return c.json(errorBody(err.code, err.message), err.status);
};
