/** The `playground` option of `McpModule.forRoot`: `true`, or this object. */
export interface McpPlaygroundOptions {
  /** Serve the page at `<endpoint>/playground`. */
  enabled: boolean;
  /**
   * Serve it when `NODE_ENV` is `production` too. Off by default: the page lets anyone who can open it call
   * every tool the endpoint lets them call, which is a development tool's job and not a production app's.
   */
  allowInProduction?: boolean;
}

/** The `playground` option as given: off when omitted. */
export type McpPlaygroundOption = boolean | McpPlaygroundOptions;

export function playgroundEnabled(option: McpPlaygroundOption | undefined): boolean {
  return option === true || (typeof option === 'object' && option !== null && option.enabled === true);
}

export function playgroundAllowedInProduction(option: McpPlaygroundOption | undefined): boolean {
  return typeof option === 'object' && option !== null && option.allowInProduction === true;
}
