/** Whether all the promises settled within `ms`: how a transport's shutdown drain waits for calls in flight. */
export async function settledWithin(promises: Array<Promise<unknown>>, ms: number): Promise<boolean> {
  if (promises.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = Promise.allSettled(promises).then(() => true as const);
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
