import { AppBridge, PostMessageTransport, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';
import { uiContentSecurityPolicy, withContentSecurityPolicy } from '../src/server/apps/ui-content-security-policy.js';
import { VIEW_BRIDGE_GLOBAL } from './view-bridge-name.js';

/**
 * The MCP Apps view bridge, a script of its own (`<page>/bridge.js`) that the page loads only when it shows a
 * tool's view: ext-apps validates every view message with zod, which is about half of what the page would
 * otherwise load for every visit.
 */
const viewBridge = {
  AppBridge,
  PostMessageTransport,
  buildAllowAttribute,
  uiContentSecurityPolicy,
  withContentSecurityPolicy,
};

export type ViewBridge = typeof viewBridge;

(globalThis as Record<string, unknown>)[VIEW_BRIDGE_GLOBAL] = viewBridge;
