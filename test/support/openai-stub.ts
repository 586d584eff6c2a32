import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the stub makes, when the user's words ask for it and the agent offers the tool. */
interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}

/** The text parts of a message's content (a string, or an array of parts). */
function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  return Array.isArray(content) ? content.flatMap((part: { text?: unknown }) => (typeof part?.text === 'string' ? [part.text] : [])) : [];
}

/**
 * The tool call the last user message asks for: "read <absolute path>" →
 * `read_file`; a part that is exactly "please run: <command>" → qwen's shell
 * tool, `run_shell_command`, which asks for permission unless approved. Only
 * a whole part: qwen's background agents (memory, suggestions) quote the
 * conversation in their prompts, and must not run the command again.
 */
function scriptedCall(content: unknown, offered: ReadonlySet<string>): ScriptedCall | undefined {
  const path = /read (\/[^\s"\\]+)/.exec(typeof content === 'string' ? content : JSON.stringify(content ?? ''))?.[1];
  if (path && offered.has('read_file')) return { name: 'read_file', args: { file_path: path, absolute_path: path } };
  const command = textsOf(content)
    .map((text) => /^please run: ([^\n]+)$/.exec(text.trim())?.[1])
    .find((found) => found !== undefined);
  if (command && offered.has('run_shell_command')) {
    return { name: 'run_shell_command', args: { command, description: 'Run the command the user asked for', is_background: false } };
  }
  return undefined;
}

/**
 * A minimal OpenAI-compatible chat-completions server on 127.0.0.1, so a real
 * agent (e.g. `qwen --acp`, `qwen serve`) can run offline. Streams its
 * answers. When the user asks for a tool the agent offers (see
 * {@link scriptedCall}), it first answers with text plus that tool call, then,
 * given the tool result, with the final answer: "The file says: <content>"
 * after `read_file`, "The command ran." after the shell.
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
    const messages: Array<{ role: string; content: unknown; tool_calls?: Array<{ function?: { name?: string } }> }> = body.messages ?? [];
    const last = messages.at(-1);
    const lastText = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    const offered = new Set<string>((body.tools ?? []).map((t: { function?: { name?: string } }) => t.function?.name));
    const toolCall = last?.role === 'user' ? scriptedCall(last.content, offered) : undefined;
    // After a tool's result: which tool it was is named by the assistant message that called it.
    const called = messages.findLast((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function?.name;
    const text =
      last?.role === 'tool'
        ? called === 'run_shell_command'
          ? 'The command ran.'
          : `The file says: ${/"text":"([^"\\]*)/.exec(lastText)?.[1]?.trim() ?? ''}`
        : toolCall
          ? toolCall.name === 'read_file'
            ? 'Let me read it first. '
            : 'Let me run it. '
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
