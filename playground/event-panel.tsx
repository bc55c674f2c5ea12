import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorView } from './content-view.js';
import type { Notification, RpcOutcome } from './mcp-client.js';
import type { PanelContext } from './tool-panel.js';

/** Most stream messages kept on the page: the newest, so a busy event type cannot grow the page without end. */
const MAX_SHOWN = 200;

/**
 * An event type (SEP-3415): what it carries, and a live `events/stream` of it from now on. Each occurrence is
 * shown as the data it is (never rendered as markup); Stop aborts the request, which ends the stream.
 */
export function EventPanel({ event, context }: { event: any; context: PanelContext }) {
  const [messages, setMessages] = useState<Notification[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [ended, setEnded] = useState<RpcOutcome>();
  const stop = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => stop.current?.abort(), []);
  const canStream = Array.isArray(event.delivery) && event.delivery.includes('push');

  const start = async () => {
    const abort = new AbortController();
    stop.current = abort;
    setMessages([]);
    setEnded(undefined);
    setStreaming(true);
    try {
      const outcome = await context.client.request(
        'events/stream',
        { name: event.name, cursor: null },
        {
          signal: abort.signal,
          onNotification: (message) => setMessages((shown) => [...shown, message].slice(-MAX_SHOWN)),
        },
      );
      if (outcome.status === 401 || outcome.status === 403) context.onChallenge(outcome);
      setEnded(outcome);
    } catch (error) {
      if (!abort.signal.aborted) setEnded({ status: 0, error: { code: 0, message: String(error) } });
    } finally {
      setStreaming(false);
    }
  };

  return (
    <article class="panel" data-testid="event-panel">
      <h2>{event.name}</h2>
      <p class="muted">
        {(event.delivery ?? []).map((mode: string) => (
          <span class="badge" key={mode}>
            {mode}
          </span>
        ))}
      </p>
      {event.description ? <p>{event.description}</p> : null}
      <details>
        <summary>Payload schema</summary>
        <pre>{JSON.stringify(event.payloadSchema ?? {}, null, 2)}</pre>
      </details>
      {canStream ? (
        streaming ? (
          <button type="button" onClick={() => stop.current?.abort()}>
            Stop
          </button>
        ) : (
          <button type="button" class="primary" onClick={() => void start()}>
            Stream
          </button>
        )
      ) : (
        <p class="muted">This event type is not delivered by push.</p>
      )}
      {ended?.error ? <ErrorView error={ended.error} status={ended.status} /> : null}
      <ol class="event-stream" data-testid="event-stream">
        {messages.map((message, index) => (
          <li key={index} data-method={message.method}>
            <span class="badge">{message.method.replace('notifications/events/', '')}</span>{' '}
            {message.method === 'notifications/events/event' ? (
              <>
                <time>{message.params?.timestamp}</time> <code>{JSON.stringify(message.params?.data)}</code>
              </>
            ) : (
              <code>{JSON.stringify(withoutMeta(message.params))}</code>
            )}
          </li>
        ))}
      </ol>
    </article>
  );
}

function withoutMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const { _meta: _ignored, ...rest } = params ?? {};
  return rest;
}
