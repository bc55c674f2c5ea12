/** A result as its parts: content blocks (text, JSON pretty-printed, images, audio, links, embedded resources) and structured content. */
export function ContentBlocks({ blocks, onOpenResource }: { blocks: any[]; onOpenResource?(uri: string): void }) {
  return (
    <div class="blocks">
      {blocks.map((block, index) => (
        <Block key={index} block={block} onOpenResource={onOpenResource} />
      ))}
    </div>
  );
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** Text that holds JSON is shown pretty-printed. */
export function Text({ text }: { text: string }) {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return <Json value={JSON.parse(trimmed)} />;
    } catch {
      // not JSON after all
    }
  }
  return <pre class="text">{text}</pre>;
}

function Block({ block, onOpenResource }: { block: any; onOpenResource?(uri: string): void }) {
  switch (block?.type) {
    case 'text':
      return <Text text={String(block.text)} />;
    case 'image':
      return <img class="image" alt="image content" src={`data:${block.mimeType};base64,${block.data}`} />;
    case 'audio':
      return <audio controls src={`data:${block.mimeType};base64,${block.data}`} />;
    case 'resource_link':
      return (
        <div class="link">
          <span class="badge">link</span> {block.title ?? block.name}{' '}
          <button type="button" class="linkish" onClick={() => onOpenResource?.(block.uri)}>
            {block.uri}
          </button>
          {block.description ? <small> {block.description}</small> : null}
        </div>
      );
    case 'resource':
      return <ResourceContents contents={[block.resource]} />;
    default:
      return <Json value={block} />;
  }
}

/** The contents of a `resources/read` (or an embedded resource): text, or a blob as an image, audio or its size. */
export function ResourceContents({ contents }: { contents: any[] }) {
  return (
    <div class="blocks">
      {contents.map((item, index) => (
        <div key={index} class="resource">
          <div class="muted">
            {item.uri} {item.mimeType ? <span class="badge">{item.mimeType}</span> : null}
          </div>
          {typeof item.text === 'string' ? (
            <Text text={item.text} />
          ) : item.mimeType?.startsWith('image/') ? (
            <img class="image" alt={item.uri} src={`data:${item.mimeType};base64,${item.blob}`} />
          ) : item.mimeType?.startsWith('audio/') ? (
            <audio controls src={`data:${item.mimeType};base64,${item.blob}`} />
          ) : (
            <p class="muted">{Math.floor((String(item.blob ?? '').length * 3) / 4)} bytes of binary content</p>
          )}
        </div>
      ))}
    </div>
  );
}

/** A JSON-RPC error, with the challenge of a 401 or 403. */
export function ErrorView({ error, status, challenge }: { error: any; status?: number; challenge?: string }) {
  return (
    <div class="error">
      <strong>
        {status && status !== 200 ? `HTTP ${status} · ` : ''}
        {error.code !== 0 ? `${error.code} ` : ''}
        {error.message}
      </strong>
      {challenge ? (
        <p data-testid="challenge">
          WWW-Authenticate: <code>{challenge}</code>
        </p>
      ) : null}
      {error.data !== undefined ? <Json value={error.data} /> : null}
    </div>
  );
}
