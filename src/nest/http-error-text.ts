/**
 * The message of a Nest HTTP error body (`{ statusCode, message, error }`, `message` a string or a
 * `ValidationPipe`'s list): what a tool error result shows, the same for an `@Tool`'s thrown `HttpException` and
 * a route tool's error answer.
 */
export function httpErrorText(response: unknown, fallback: string): string {
  const message =
    typeof response === 'string' ? response : (response as { message?: unknown } | null | undefined)?.message;
  return Array.isArray(message) ? message.join('; ') : String(message ?? fallback);
}
