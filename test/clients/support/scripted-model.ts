import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  messages: Array<{ role: string; content?: unknown }>;
  tools?: Array<{ function: { name: string } }>;
  stream?: boolean;
}

export interface ScriptedModel {
  /** The base URL of its OpenAI-style API, `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Every chat-completions request it got, so a test sees which tools the client offered the model. */
  requests: ChatRequest[];
  close(): Promise<void>;
}

/**
 * The model, which cannot run here: an OpenAI-style chat-completions endpoint that answers with one tool call
 * (the `call` it was built with) while no tool has answered yet, then with the last tool answer as its reply;
 * streamed (SSE chunks) or not, as the request asks.
 */
export async function scriptedModel(call: {
  name: string;
  arguments: Record<string, unknown>;
}): Promise<ScriptedModel> {
  const requests: ChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readJson(req).then((body) => {
      requests.push(body);
      const answered = body.messages.filter((message) => message.role === 'tool');
      const toolCall = {
        id: 'call-1',
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      };
      const message = answered.length
        ? { role: 'assistant', content: `The tool said: ${textOf(answered.at(-1)!.content)}` }
        : { role: 'assistant', content: null, tool_calls: [toolCall] };
      const finish = answered.length ? 'stop' : 'tool_calls';
      const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const choice = { index: 0, message, finish_reason: finish };
        res.end(
          JSON.stringify({
            id: 'c',
            object: 'chat.completion',
            created: 0,
            model: 'scripted',
            choices: [choice],
            usage,
          }),
        );
        return;
      }
      const delta = answered.length ? message : { role: 'assistant', tool_calls: [{ index: 0, ...toolCall }] };
      const chunk = (choices: unknown[], extra = {}) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'scripted', choices, ...extra })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        chunk([{ index: 0, delta }]) +
          chunk([{ index: 0, delta: {}, finish_reason: finish }]) +
          chunk([], { usage }) +
          'data: [DONE]\n\n',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A tool message's content: a string, or OpenAI content parts. */
function textOf(content: unknown): string {
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
  return String(content);
}

async function readJson(req: IncomingMessage): Promise<ChatRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
}
