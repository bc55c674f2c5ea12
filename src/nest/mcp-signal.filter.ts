import { Catch, type ExceptionFilter } from '@nestjs/common';
import { McpError } from '../protocol/mcp-error.js';
import { InputRequired } from '../server/input/input-required.js';

/**
 * Lets the kernel's control-flow signals through a tool's exception filters: an `InputRequired` (the
 * input_required round trip) or an `McpError` (a JSON-RPC error) must reach the kernel untouched, not be
 * turned into another result by a catch-all filter, nor be logged as an unhandled error.
 */
@Catch(InputRequired, McpError)
export class McpSignalFilter implements ExceptionFilter {
  catch(signal: InputRequired | McpError): never {
    throw signal;
  }
}
