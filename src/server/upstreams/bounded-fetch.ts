/**
 * The `fetch` an HTTP upstream's transport is given: the request carries exactly the entry's headers on top
 * of what the SDK set (never anything of the caller's, which the gateway does not hand to the transport), and
 * the response body is cut, with an error naming the upstream, past `maxBytes`.
 */
export function boundedFetch(
  maxBytes: number,
  label: string,
  headersFor: () => Promise<Record<string, string>>,
): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(await headersFor())) headers.set(name, value);
    const response = await fetch(input, { ...init, headers });
    if (!response.body) return response;
    const length = response.headers.get('content-length');
    const declared = Number(length ?? 0);
    if (declared > maxBytes) {
      await response.body.cancel();
      throw tooLarge(label, maxBytes);
    }
    // A declared length is held to by fetch itself (a longer body is an error), so only a body without one (a
    // stream) is counted as it arrives: the counting stream costs more than a small call's whole answer.
    if (length !== null && !response.headers.has('content-encoding')) return response;
    let seen = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(tooLarge(label, maxBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function tooLarge(label: string, maxBytes: number): Error {
  return new Error(`upstream ${label} sent more than maxResponseBytes (${maxBytes} bytes)`);
}
