import { useState } from 'preact/hooks';
import { CallView, useCall } from './call-runner.js';
import { ContentBlocks, ResourceContents } from './content-view.js';
import type { PanelContext } from './tool-panel.js';

/** A resource (or a template filled in): `resources/read`, its contents shown as their type allows. */
export function ResourcePanel({ item, context }: { item: any; context: PanelContext }) {
  const variables = item.uriTemplate
    ? [...item.uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) => m[1].split(','))
    : [];
  const [values, setValues] = useState<Record<string, string>>({});
  const call = useCall(context.client, 'resources/read', context.onChallenge);
  const uri = item.uriTemplate
    ? item.uriTemplate.replace(/\{[+#./;?&]?([^}]+)\}/g, (_: string, names: string) =>
        names
          .split(',')
          .map((name) => encodeURIComponent(values[name.replace(/\*$/, '')] ?? ''))
          .join(','),
      )
    : item.uri;
  return (
    <article class="panel">
      <h2>{item.title ?? item.name}</h2>
      <p class="muted">
        {item.uriTemplate ?? item.uri} {item.mimeType ? <span class="badge">{item.mimeType}</span> : null}
      </p>
      {item.description ? <p>{item.description}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          call.start({ uri });
        }}
      >
        {variables.map((name) => (
          <label class="field" key={name}>
            <span class="label">{name}</span>
            <input
              type="text"
              name={name.replace(/\*$/, '')}
              value={values[name] ?? ''}
              onInput={(e) => setValues({ ...values, [name.replace(/\*$/, '')]: (e.target as HTMLInputElement).value })}
            />
          </label>
        ))}
        <button type="submit" class="primary">
          Read
        </button>
      </form>
      <CallView call={call} render={(result) => <ResourceContents contents={result.contents ?? []} />} />
    </article>
  );
}

/** A prompt: its arguments, `prompts/get`, and the messages it renders. */
export function PromptPanel({ prompt, context }: { prompt: any; context: PanelContext }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const call = useCall(context.client, 'prompts/get', context.onChallenge);
  return (
    <article class="panel">
      <h2>{prompt.title ?? prompt.name}</h2>
      {prompt.description ? <p>{prompt.description}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          call.start({ name: prompt.name, arguments: values });
        }}
      >
        {(prompt.arguments ?? []).map((argument: any) => (
          <label class="field" key={argument.name}>
            <span class="label">
              {argument.name}
              {argument.required ? <abbr title="required"> *</abbr> : null}
              {argument.description ? <small> {argument.description}</small> : null}
            </span>
            <input
              type="text"
              name={argument.name}
              value={values[argument.name] ?? ''}
              onInput={(e) => setValues({ ...values, [argument.name]: (e.target as HTMLInputElement).value })}
            />
          </label>
        ))}
        <button type="submit" class="primary">
          Get
        </button>
      </form>
      <CallView
        call={call}
        render={(result) => (
          <div class="messages">
            {result.description ? <p class="muted">{result.description}</p> : null}
            {(result.messages ?? []).map((message: any, index: number) => (
              <div key={index} class="message">
                <span class="badge">{message.role}</span>
                <ContentBlocks blocks={[message.content].flat()} onOpenResource={context.openResource} />
              </div>
            ))}
          </div>
        )}
      />
    </article>
  );
}
