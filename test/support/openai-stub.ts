import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal OpenAI-compatible chat-completions server on 127.0.0.1, so a real
 * agent (e.g. `qwen --acp`) can run offline. Streams its answers. When the
 * user asks to "read <absolute path>" and the agent offers `read_file`, it
 * first answers with text plus a `read_file` tool call, then, given the tool
 * result, with the final answer "The file says: <content>".
 */
export async function startOpenAiStub(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  let answers = 0;
  const server: Server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : {};
    if (!req.url?.includes('/chat/completions')) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: 'stub', object: 'model' }] }));
      return;
    }
    const messages: Array<{ role: string; content: unknown }> = body.messages ?? [];
    const last = messages.at(-1);
    const lastText = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    const offersRead = (body.tools ?? []).some((t: { function?: { name?: string } }) => t.function?.name === 'read_file');
    const path = /read (\/[^\s"\\]+)/.exec(lastText)?.[1];
    const toolCall =
      offersRead && last?.role === 'user' && path ? { name: 'read_file', args: { file_path: path, absolute_path: path } } : undefined;
    const text =
      last?.role === 'tool'
        ? `The file says: ${/"text":"([^"\\]*)/.exec(lastText)?.[1]?.trim() ?? ''}`
        : toolCall
          ? 'Let me read it first. '
          : `Stub answer ${++answers}.`;
    const id = `chatcmpl-${answers}`;
    const chunk = (delta: object, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'stub', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: 0,
          model: 'stub',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    chunk({ role: 'assistant', content: '' });
    for (const part of text.match(/.{1,8}/gs) ?? []) chunk({ content: part });
    if (toolCall) {
      chunk({
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: toolCall.name, arguments: JSON.stringify(toolCall.args) } },
        ],
      });
      chunk({}, 'tool_calls');
    } else {
      chunk({}, 'stop');
    }
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
