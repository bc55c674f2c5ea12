import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useRef, useState } from 'preact/hooks';
import { UI_MIME_TYPE, type McpClient } from './mcp-client.js';
import type { ViewBridge } from './view-bridge.js';
import { VIEW_BRIDGE_GLOBAL } from './view-bridge-name.js';

let loading: Promise<ViewBridge> | undefined;

/** The view bridge's script, loaded once, when the first view is shown; a failed load is tried again next time. */
function loadViewBridge(url: string): Promise<ViewBridge> {
  return (loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url;
    script.onload = () => resolve((globalThis as unknown as Record<string, ViewBridge>)[VIEW_BRIDGE_GLOBAL]);
    script.onerror = () => {
      loading = undefined;
      script.remove();
      reject(new Error(`the MCP Apps view bridge (${url}) could not be loaded`));
    };
    document.head.append(script);
  }));
}

/**
 * A tool's MCP Apps view, as a host renders it: the `ui://` document read from the server, run in a sandboxed
 * iframe (an opaque origin) under the policy its `_meta.ui.csp` allows, connected to the page by the real
 * `AppBridge`, which forwards the view's `tools/call` and `resources/read` to the endpoint with the page's token.
 */
export function WidgetView(props: {
  client: McpClient;
  uri: string;
  frameUrl: string;
  bridgeUrl: string;
  input: unknown;
  result: any;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const [log, setLog] = useState<string[]>([]);
  const [failure, setFailure] = useState<string>();

  useEffect(() => {
    const { client, uri, frameUrl, bridgeUrl, input, result } = props;
    const iframe = document.createElement('iframe');
    let bridge: AppBridge | undefined;
    let closed = false;
    const forward = async (method: string, params: any, name: string) => {
      setLog((lines) => [...lines, `${method} ${name}`]);
      const outcome = await client.request(method, params);
      if (outcome.result) return outcome.result;
      throw new Error(outcome.error?.message ?? `HTTP ${outcome.status}`);
    };
    (async () => {
      const [read, views] = await Promise.all([client.request('resources/read', { uri }), loadViewBridge(bridgeUrl)]);
      const {
        AppBridge,
        PostMessageTransport,
        buildAllowAttribute,
        uiContentSecurityPolicy,
        withContentSecurityPolicy,
      } = views;
      const item = read.result?.contents?.find((c: any) => c.uri === uri) ?? read.result?.contents?.[0];
      if (!item || typeof item.text !== 'string' || item.mimeType !== UI_MIME_TYPE)
        throw new Error(read.error?.message ?? `${uri} is not a ${UI_MIME_TYPE} document`);
      const meta = item._meta?.ui ?? {};
      iframe.setAttribute('sandbox', 'allow-scripts');
      const allow = buildAllowAttribute(meta.permissions);
      if (allow) iframe.setAttribute('allow', allow);
      iframe.title = uri;
      iframe.className = meta.prefersBorder === false ? 'view' : 'view bordered';
      const loaded = new Promise((resolve) => iframe.addEventListener('load', resolve, { once: true }));
      iframe.src = frameUrl;
      holder.current!.append(iframe);
      await loaded;
      if (closed) return;
      bridge = new AppBridge(
        null,
        { name: 'nestjs-mcp-playground', version: '1.0.0' },
        { serverTools: {}, serverResources: {} },
      );
      bridge.oncalltool = (params) => forward('tools/call', params, params.name);
      bridge.onreadresource = (params) => forward('resources/read', params, params.uri);
      const initialized = new Promise((resolve) => (bridge!.oninitialized = () => resolve(undefined)));
      await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
      const html = withContentSecurityPolicy(item.text, uiContentSecurityPolicy(meta.csp));
      iframe.contentWindow!.postMessage({ type: 'nestjs-mcp/playground-view', html }, '*');
      await initialized;
      await bridge.sendToolInput({ arguments: (input ?? {}) as Record<string, unknown> });
      await bridge.sendToolResult(result);
    })().catch((error: unknown) => setFailure(error instanceof Error ? error.message : String(error)));
    return () => {
      closed = true;
      void bridge?.close();
      iframe.remove();
    };
  }, [props.result]);

  return (
    <div class="widget" data-testid="widget">
      <h3>
        View <code>{props.uri}</code>
      </h3>
      {failure ? <p class="error">{failure}</p> : null}
      <div ref={holder} />
      {log.length ? (
        <ul class="muted" data-testid="view-requests">
          {log.map((line, index) => (
            <li key={index}>view → {line}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
