import { describe, expect, it } from 'vitest';
import { get, post } from '../engine/helpers';

const refusal = async (res: Response) => {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, ...body.error };
};

/** No run of this question was stored: the refusal came before any run existed. */
const noRunFor = async (question: string) => {
  const { runs } = (await (await get('/v1/runs?limit=100')).json()) as { runs: Array<{ question: string }> };
  expect(runs.map((r) => r.question)).not.toContain(question);
};

describe('program and rag modes need usable context: a 400 naming what is missing, before any run exists', () => {
  it('hybridqa (program mode) without context', async () => {
    const question = `Which team won in 1998? ${crypto.randomUUID()}`;
    const res = await post('/v1/answer', { question, variant: 'hybridqa' });
    const error = await refusal(res);
    expect(error).toMatchObject({ status: 400, code: 'invalid_context' });
    expect(error.message).toContain('program mode needs context.table');
    expect(res.headers.get('x-run-id')).toBeNull();
    await noRunFor(question);
  });

  it('program mode with a table that has no columns names the field', async () => {
    const question = `How many rows? ${crypto.randomUUID()}`;
    const error = await refusal(await post('/v1/answer', { question, mode: 'program', context: { table: { columns: [], rows: [] } } }));
    expect(error).toMatchObject({ status: 400, code: 'invalid_context' });
    expect(error.message).toContain('context.table.columns');
    await noRunFor(question);
  });

  it('rag mode given a table instead of pages says where pages go', async () => {
    const question = `What is the price today? ${crypto.randomUUID()}`;
    const context = { table: { columns: ['a'], rows: [[{ text: '1' }]] } };
    const error = await refusal(await post('/v1/answer', { question, variant: 'crag', context }));
    expect(error).toMatchObject({ status: 400, code: 'invalid_context' });
    expect(error.message).toContain('context.pages');
    expect(error.message).toContain('context.table is for program mode');
    await noRunFor(question);
  });

  it('the chat facade answers 400 too, and says where context goes', async () => {
    const question = `Which team won in 1999? ${crypto.randomUUID()}`;
    const res = await post('/v1/chat/completions', { model: 'hybridqa', messages: [{ role: 'user', content: question }] });
    const error = await refusal(res);
    expect(error).toMatchObject({ status: 400, code: 'invalid_context' });
    expect(error.message).toContain('program mode needs context.table');
    expect(error.message).toContain('POST /v1/answer');
    expect(error.message).toContain('"hybridqa:agent"');
    await noRunFor(question);
  });
});
