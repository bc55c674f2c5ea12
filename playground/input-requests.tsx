import { useState } from 'preact/hooks';
import { Json } from './content-view.js';
import { JsonInput, SchemaForm } from './schema-form.js';

/**
 * The questions of an `input_required` round, each with a way to answer it: an elicitation form built from its
 * `requestedSchema` (or, in URL mode, its link), a sampling request shown with a field for the reply, a roots
 * request with the roots to give. All answers go back together, as one retry.
 */
export function InputRequests({
  requests,
  onSubmit,
}: {
  requests: Record<string, any>;
  onSubmit(answers: Record<string, unknown>): void;
}) {
  const [answers, setAnswers] = useState<Record<string, unknown>>(() =>
    Object.fromEntries(Object.entries(requests).map(([key, request]) => [key, initialAnswer(request)])),
  );
  const set = (key: string, answer: unknown) => setAnswers({ ...answers, [key]: answer });
  return (
    <form
      class="input-requests"
      data-testid="input-requests"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(answers);
      }}
    >
      <h3>The server asks</h3>
      {Object.entries(requests).map(([key, request]) => (
        <fieldset key={key}>
          <legend>
            <span class="badge">{request.method}</span> {key}
          </legend>
          <Question request={request} answer={answers[key]} onAnswer={(answer) => set(key, answer)} />
        </fieldset>
      ))}
      <button type="submit">Send answers</button>
    </form>
  );
}

function initialAnswer(request: any): unknown {
  switch (request.method) {
    case 'elicitation/create':
      return { action: 'accept', content: {} };
    case 'sampling/createMessage':
      return { role: 'assistant', model: 'playground', content: { type: 'text', text: '' } };
    case 'roots/list':
      return { roots: [] };
    default:
      return {};
  }
}

function Question({ request, answer, onAnswer }: { request: any; answer: any; onAnswer(answer: unknown): void }) {
  const params = request.params ?? {};
  if (request.method === 'elicitation/create') {
    return (
      <div>
        <p class="message">{params.message}</p>
        {params.mode === 'url' ? (
          <p>
            <a href={params.url} target="_blank" rel="noreferrer noopener">
              {params.url}
            </a>
          </p>
        ) : (
          <SchemaForm
            schema={params.requestedSchema}
            value={answer.content ?? {}}
            onChange={(content) => onAnswer({ ...answer, content })}
          />
        )}
        <label class="field">
          <span class="label">Action</span>
          <select
            name="action"
            value={answer.action}
            onChange={(e) => {
              const action = (e.target as HTMLSelectElement).value;
              onAnswer(action === 'accept' ? { action, content: answer.content ?? {} } : { action });
            }}
          >
            <option value="accept">accept</option>
            <option value="decline">decline</option>
            <option value="cancel">cancel</option>
          </select>
        </label>
      </div>
    );
  }
  if (request.method === 'sampling/createMessage') {
    return (
      <div>
        <Json value={params.messages} />
        <label class="field">
          <span class="label">Reply as the model</span>
          <textarea
            name="reply"
            rows={3}
            value={answer.content.text}
            onInput={(e) =>
              onAnswer({ ...answer, content: { type: 'text', text: (e.target as HTMLTextAreaElement).value } })
            }
          />
        </label>
      </div>
    );
  }
  if (request.method === 'roots/list') {
    return (
      <label class="field">
        <span class="label">Roots (JSON list of {'{ uri, name }'})</span>
        <JsonInput name="roots" value={answer.roots} onChange={(roots) => onAnswer({ roots: roots ?? [] })} />
      </label>
    );
  }
  return (
    <label class="field">
      <Json value={request} />
      <span class="label">Answer (JSON)</span>
      <JsonInput name="answer" value={answer} onChange={(value) => onAnswer(value ?? {})} />
    </label>
  );
}
