/** A chunk's delta as this service sends it: OpenAI's fields plus `reasoning_content`, which the SDK's types lack. */
type ChatDelta = { content?: string | null; reasoning_content?: string };

/**
 * Reads a streamed chat completion as an OpenAI client would: `content` concatenated (what a chat UI shows as the
 * reply), `reasoning_content` too (its "thinking" panel), each reasoning piece, and the order the two kinds came in.
 */
export const readChat = async (stream: AsyncIterable<{ choices: Array<{ delta?: unknown }> }>) => {
  const order: Array<'reasoning' | 'content'> = [];
  const pieces: string[] = [];
  let reasoning = '';
  let content = '';
  for await (const chunk of stream) {
    const d = chunk.choices[0]?.delta as ChatDelta | undefined;
    if (d?.reasoning_content) {
      reasoning += d.reasoning_content;
      pieces.push(d.reasoning_content);
      order.push('reasoning');
    }
    if (d?.content) {
      content += d.content;
      order.push('content');
    }
  }
  return { order, pieces, reasoning, content };
};
