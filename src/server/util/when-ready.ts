/**
 * Applies `next` to a value at once, or once it settles when it is a promise (or any thenable). On the hot path a
 * synchronous step (a validator, a handler that returns a value) then costs no microtask: `await` on a plain value
 * still suspends the function and queues its resumption. `failed` handles a rejection of the awaited value only,
 * never an error `next` throws, as a `try` around an `await` alone would.
 */
export function whenReady<T, R>(
  value: T | PromiseLike<T>,
  next: (value: T) => R | Promise<R>,
  failed?: (error: unknown) => R | Promise<R>,
): R | Promise<R> {
  return isThenable(value) ? Promise.resolve(value).then(next, failed) : next(value);
}

export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
