const NOTHING_TO_UNDO = (): void => undefined;

/**
 * How a transport tells a call to stop, in both forms the kernel takes: `signal`, whose AbortController is
 * created only when a handler reads it (most never do, and one costs more than the rest of a small call), and
 * `onAbort` subscriptions, which the call guard and listen streams use. `abort` fires both, once. A transport
 * extends it and says, through `watch`, how it notices the client going away once something listens.
 */
export abstract class AbortableExchange {
  // Declared, never assigned up front: a transport makes one exchange per request and most are never stopped
  // nor asked for their signal, so each member is set when first needed. Without a constructor of its own, the
  // interpreter skips this class when a transport's exchange is made (`--omit-default-ctors`).
  declare private controller: AbortController | undefined;
  declare private abortListeners: Array<(reason: unknown) => void> | undefined;
  declare protected abortedWith: { reason: unknown } | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      if (this.abortedWith) controller.abort(this.abortedWith.reason);
      else this.watch();
    }
    return this.controller.signal;
  }

  /** True once the call was stopped or the client is known to be gone: a listener added now would fire at once. */
  get aborted(): boolean {
    return this.abortedWith !== undefined || this.gone;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.abortedWith || this.gone) {
      listener(this.abortedWith?.reason);
      return NOTHING_TO_UNDO;
    }
    (this.abortListeners ??= []).push(listener);
    this.watch();
    return () => {
      const at = this.abortListeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.abortListeners!.splice(at, 1);
    };
  }

  /** Stops the call; its handler's signal fires with `reason`. Later calls change nothing. */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    const listeners = this.abortListeners;
    this.abortListeners = undefined;
    for (const listener of listeners ?? []) listener(reason);
  }

  /** Starts noticing the client going away (and calls `abort` then); called whenever something starts to listen. */
  protected watch(): void {}

  /** Whether the client is already known to be gone, before `abort` was called. */
  protected get gone(): boolean {
    return false;
  }
}
