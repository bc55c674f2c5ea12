import type { McpRedisConnections } from './redis-connections.js';

/**
 * One pub/sub channel an instance listens on, on the shared subscriber connection: subscribed whenever that
 * connection becomes ready (the first time, and after every reconnection), with `listening` telling whether
 * messages published now would arrive. Messages are JSON; `receive` gets each one parsed.
 */
export class RedisChannel {
  private subscribed = false;
  private subscribedBefore = false;
  private readonly stopSubscribing: () => void;
  private readonly onMessage = (channel: string, message: string) => {
    if (channel !== this.name) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      // Not ours: every message this module publishes is JSON. Whoever reads it still checks its shape.
      return;
    }
    this.receive(parsed);
  };
  private readonly stopWatchingNodes: () => void;
  private readonly onClose = () => {
    this.subscribed = false;
  };

  /** `onResubscribed` runs each time the channel is subscribed again after a loss: messages may have been missed. */
  constructor(
    private readonly redis: McpRedisConnections,
    readonly name: string,
    private readonly receive: (message: unknown) => void,
    private readonly onResubscribed?: () => void,
  ) {
    redis.subscriber.on('message', this.onMessage);
    redis.subscriber.on('close', this.onClose);
    this.stopSubscribing = redis.onSubscriberReady(() => this.subscribe());
    this.stopWatchingNodes = redis.onClusterNodeLost(() => {
      if (this.subscribed) this.onResubscribed?.();
    });
  }

  get listening(): boolean {
    return this.subscribed;
  }

  close(): void {
    this.stopSubscribing();
    this.redis.subscriber.off('message', this.onMessage);
    this.redis.subscriber.off('close', this.onClose);
    this.stopWatchingNodes();
    if (this.redis.subscriber.status === 'ready') this.redis.subscriber.unsubscribe(this.name).catch(() => undefined);
    this.subscribed = false;
  }

  private subscribe(): void {
    this.redis.subscriber.subscribe(this.name).then(
      () => {
        this.subscribed = true;
        if (this.subscribedBefore) this.onResubscribed?.();
        this.subscribedBefore = true;
      },
      // The connection went away again before the answer; its next "ready" subscribes again.
      () => undefined,
    );
  }
}
