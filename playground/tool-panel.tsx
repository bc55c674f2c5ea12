import { useState } from 'preact/hooks';
import { CallView, useCall } from './call-runner.js';
import { ContentBlocks, Json } from './content-view.js';
import { paramHeaders, UI_EXTENSION, type McpClient, type RpcOutcome } from './mcp-client.js';
import { JsonInput, SchemaForm } from './schema-form.js';
import { WidgetView } from './widget-view.js';

export interface PanelContext {
  client: McpClient;
  /** Where the page is (`…/mcp/playground`): the view shell is beside it. */
  pagePath: string;
  onChallenge(outcome: RpcOutcome): void;
  openResource(uri: string): void;
}

/** The `ui://` document a tool names, if any. */
export function uiResourceOf(tool: any): string | undefined {
  const uri = tool._meta?.ui?.resourceUri ?? tool._meta?.['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

const HINTS: Record<string, string> = {
  readOnlyHint: 'read-only',
  destructiveHint: 'destructive',
  idempotentHint: 'idempotent',
  openWorldHint: 'open world',
};

/** What a tool's definition says of it beyond its schema: annotations, task support, scopes, UI. */
export function ToolBadges({ tool }: { tool: any }) {
  const badges: string[] = [];
  for (const [key, label] of Object.entries(HINTS)) if (tool.annotations?.[key] === true) badges.push(label);
  const taskSupport = tool.execution?.taskSupport;
  if (taskSupport && taskSupport !== 'forbidden') badges.push(`task: ${taskSupport}`);
  const scopes = tool._meta?.scopes ?? tool._meta?.requiredScopes;
  if (Array.isArray(scopes)) badges.push(`scopes: ${scopes.join(' ')}`);
  if (uiResourceOf(tool)) badges.push('UI');
  if (tool._meta?.ui?.visibility) badges.push(`visible to: ${tool._meta.ui.visibility.join(', ')}`);
  return (
    <span class="badges">
      {badges.map((badge) => (
        <span key={badge} class="badge">
          {badge}
        </span>
      ))}
    </span>
  );
}

/** A tool: its form (or raw JSON), the Call button, and the call followed to its end; its view when it has UI. */
export function ToolPanel({ tool, context }: { tool: any; context: PanelContext }) {
  const [args, setArgs] = useState<Record<string, unknown>>({});
  const [raw, setRaw] = useState(false);
  const [sentArgs, setSentArgs] = useState<Record<string, unknown>>({});
  const call = useCall(context.client, 'tools/call', context.onChallenge);
  const uri = uiResourceOf(tool);
  const canShowView = uri && (tool._meta?.ui?.visibility ?? ['model']).length > 0;
  return (
    <article class="panel" data-testid="tool-panel">
      <h2>
        {tool.title ?? tool.name} <ToolBadges tool={tool} />
      </h2>
      {tool.title ? <p class="muted">{tool.name}</p> : null}
      {tool.description ? <p>{tool.description}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setSentArgs(args);
          call.start({ name: tool.name, arguments: args }, paramHeaders(tool.inputSchema, args));
        }}
      >
        <label class="toggle">
          <input type="checkbox" checked={raw} onChange={() => setRaw(!raw)} /> Raw JSON
        </label>
        {raw ? (
          <JsonInput
            name="arguments"
            rows={8}
            value={args}
            onChange={(v) => setArgs((v ?? {}) as Record<string, unknown>)}
          />
        ) : (
          <SchemaForm schema={tool.inputSchema} value={args} onChange={setArgs} />
        )}
        <button type="submit" class="primary">
          Call
        </button>
      </form>
      <details>
        <summary>Schemas</summary>
        <Json value={{ inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }} />
      </details>
      <CallView
        call={call}
        render={(result) => (
          <>
            {result.isError ? <p class="error">The tool answered with an error (isError).</p> : null}
            <ContentBlocks blocks={result.content ?? []} onOpenResource={context.openResource} />
            {result.structuredContent !== undefined ? (
              <div>
                <h4>
                  Structured content{tool.outputSchema ? ' (checked by the server against the output schema)' : ''}
                </h4>
                <Json value={result.structuredContent} />
              </div>
            ) : null}
          </>
        )}
      />
      {uri && canShowView && call.phase.kind === 'done' && !call.phase.result.isError ? (
        <WidgetView
          client={context.client}
          uri={uri}
          frameUrl={`${context.pagePath}/frame`}
          bridgeUrl={`${context.pagePath}/bridge.js`}
          input={sentArgs}
          result={call.phase.result}
        />
      ) : null}
      {uri && !canShowView ? <p class="muted">Its view is declared for {UI_EXTENSION} hosts only.</p> : null}
    </article>
  );
}
