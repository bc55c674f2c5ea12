import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { REGISTRATION_FAILED } from '../../server/errors/configuration-messages.js';

/**
 * A decorated method could not be registered at start-up; `cause` is what the registry rejected. It is a
 * configuration error like any other start-up failure, so one `instanceof McpConfigurationError` catches all.
 */
export class McpRegistrationError extends McpConfigurationError {
  override readonly name = 'McpRegistrationError';

  constructor(
    /** `Class.method` of the decorated method. */
    readonly place: string,
    options: { cause: unknown },
  ) {
    super(
      REGISTRATION_FAILED(place, options.cause instanceof Error ? options.cause.message : String(options.cause)),
      options,
    );
  }
}
