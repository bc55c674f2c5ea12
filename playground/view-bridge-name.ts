/** Where the page finds the view bridge once its script (`view-bridge.ts`, loaded on demand) ran. */
export const VIEW_BRIDGE_GLOBAL = '__nestjsMcpViewBridge';
