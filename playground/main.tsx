import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { PromptPanel, ResourcePanel } from './catalog-panels.js';
import { ErrorView } from './content-view.js';
import { EventPanel } from './event-panel.js';
import { McpClient, type RpcOutcome } from './mcp-client.js';
import { ToolBadges, ToolPanel, type PanelContext } from './tool-panel.js';

type Selection =
  | { kind: 'tool'; item: any }
  | { kind: 'resource'; item: any }
  | { kind: 'prompt'; item: any }
  | { kind: 'event'; item: any }
  | undefined;

interface Catalog {
  info?: any;
  tools: any[];
  resources: any[];
  templates: any[];
  prompts: any[];
  events: any[];
}

const EMPTY: Catalog = { tools: [], resources: [], templates: [], prompts: [], events: [] };
const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';

// The page sits at `<endpoint>/playground`, under whatever prefix and version the app put the endpoint.
const pagePath = location.pathname.replace(/\/+$/, '');
const endpoint = pagePath.replace(/\/playground$/, '');

/** What the server offers: `server/discover`, then every page of each list it has; a 401 or 403 is a challenge. */
async function loadCatalog(
  client: McpClient,
  setCatalog: (catalog: Catalog) => void,
  setChallenge: (outcome: RpcOutcome | undefined) => void,
  setFailure: (outcome: RpcOutcome | undefined) => void,
): Promise<void> {
  setFailure(undefined);
  const discover = await client.request('server/discover');
  if (discover.status === 401 || discover.status === 403) {
    setChallenge(discover);
    setCatalog(EMPTY);
    return;
  }
  if (!discover.result) return setFailure(discover);
  setChallenge(undefined);
  const capabilities = discover.result.capabilities ?? {};
  const none = Promise.resolve({ items: [] as any[] });
  const [tools, resources, templates, prompts, events] = await Promise.all([
    capabilities.tools ? client.list('tools/list', 'tools') : none,
    capabilities.resources ? client.list('resources/list', 'resources') : none,
    capabilities.resources ? client.list('resources/templates/list', 'resourceTemplates') : none,
    capabilities.prompts ? client.list('prompts/list', 'prompts') : none,
    capabilities.extensions?.[EVENTS_EXTENSION] ? client.list('events/list', 'events') : none,
  ]);
  setCatalog({
    info: discover.result,
    tools: tools.items,
    resources: resources.items,
    templates: templates.items,
    prompts: prompts.items,
    events: events.items,
  });
}

function App() {
  const client = useMemo(() => new McpClient(endpoint), []);
  const [catalog, setCatalog] = useState<Catalog>(EMPTY);
  const [selection, setSelection] = useState<Selection>();
  const [challenge, setChallenge] = useState<RpcOutcome>();
  const [failure, setFailure] = useState<RpcOutcome>();

  const load = () => loadCatalog(client, setCatalog, setChallenge, setFailure);
  useEffect(() => void load(), []);

  const context: PanelContext = {
    client,
    pagePath,
    onChallenge: setChallenge,
    openResource: (uri) =>
      setSelection({ kind: 'resource', item: catalog.resources.find((r) => r.uri === uri) ?? { uri, name: uri } }),
  };
  // The same element while the catalog is the same: picking an entry or showing a call's result re-renders the
  // panel, never the lists (Preact skips an element it rendered before).
  const nav = useMemo(() => <CatalogNav catalog={catalog} onPick={setSelection} />, [catalog]);

  return (
    <div class="layout">
      <Header
        serverInfo={catalog.info?._meta?.['io.modelcontextprotocol/serverInfo']}
        onToken={(token) => {
          client.token = token;
          void load();
        }}
      />
      {challenge ? (
        <div class="challenge" data-testid="auth-challenge">
          <ErrorView
            error={challenge.error ?? { code: 0, message: 'Unauthorized' }}
            status={challenge.status}
            challenge={challenge.challenge}
          />
          <p>Give a bearer token above: it is sent with every request from this page and kept nowhere else.</p>
        </div>
      ) : null}
      {failure ? <ErrorView error={failure.error} status={failure.status} /> : null}
      {nav}
      <main>
        <Selected selection={selection} context={context} />
      </main>
    </div>
  );
}

/** The page's title and the token field (the token goes to the client object, and nowhere else). */
function Header({ serverInfo, onToken }: { serverInfo?: any; onToken(token: string): void }) {
  const [token, setToken] = useState('');
  return (
    <header>
      <h1>
        MCP playground{' '}
        {serverInfo ? (
          <span class="muted">
            {serverInfo.name} {serverInfo.version}
          </span>
        ) : null}
      </h1>
      <code class="muted">{endpoint}</code>
      <form
        class="auth"
        onSubmit={(e) => {
          e.preventDefault();
          onToken(token.trim());
        }}
      >
        <input
          type="password"
          aria-label="Bearer token"
          placeholder="Bearer token (kept in this page only)"
          autocomplete="off"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Use token</button>
      </form>
    </header>
  );
}

/** The server's lists; `onPick` is the selection's setter, so the element stays valid while the catalog does. */
function CatalogNav({ catalog, onPick }: { catalog: Catalog; onPick(selection: Selection): void }) {
  const skills = catalog.resources.filter((r) => r.uri.startsWith('skill://'));
  const resources = catalog.resources.filter((r) => !r.uri.startsWith('skill://'));
  return (
    <nav>
      {catalog.info?.instructions ? <p class="muted">{catalog.info.instructions}</p> : null}
      <Section title="Tools" items={catalog.tools} pick={(item) => onPick({ kind: 'tool', item })} badges />
      <Section title="Resources" items={resources} pick={(item) => onPick({ kind: 'resource', item })} />
      <Section
        title="Resource templates"
        items={catalog.templates}
        pick={(item) => onPick({ kind: 'resource', item })}
      />
      <Section title="Prompts" items={catalog.prompts} pick={(item) => onPick({ kind: 'prompt', item })} />
      <Section title="Skills" items={skills} pick={(item) => onPick({ kind: 'resource', item })} />
      <Section title="Events" items={catalog.events} pick={(item) => onPick({ kind: 'event', item })} />
    </nav>
  );
}

function Selected({ selection, context }: { selection: Selection; context: PanelContext }) {
  switch (selection?.kind) {
    case 'tool':
      return <ToolPanel key={selection.item.name} tool={selection.item} context={context} />;
    case 'resource':
      return (
        <ResourcePanel key={selection.item.uri ?? selection.item.uriTemplate} item={selection.item} context={context} />
      );
    case 'prompt':
      return <PromptPanel key={selection.item.name} prompt={selection.item} context={context} />;
    case 'event':
      return <EventPanel key={selection.item.name} event={selection.item} context={context} />;
    default:
      return <p class="muted">Pick a tool, a resource or a prompt.</p>;
  }
}

/** A list of the server's primitives; each entry's text is the primitive's name alone. */
function Section({
  title,
  items,
  pick,
  badges,
}: {
  title: string;
  items: any[];
  pick(item: any): void;
  badges?: boolean;
}) {
  if (items.length === 0) return null;
  return (
    <section>
      <h2>{title}</h2>
      <ul>
        {items.map((item) => (
          <li key={item.name + (item.uri ?? item.uriTemplate ?? '')}>
            <button type="button" class="entry" title={item.description ?? ''} onClick={() => pick(item)}>
              {item.name}
            </button>
            {badges ? <ToolBadges tool={item} /> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

render(<App />, document.getElementById('app')!);
