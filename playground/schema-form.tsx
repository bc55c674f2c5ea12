import { useState } from 'preact/hooks';

/**
 * A form built from a JSON Schema object: one input per property, named after it (`name="city"`; nested
 * properties as `name="address.street"`), enums as selects, booleans as checkboxes, nested objects as
 * fieldsets, arrays as lists of items; what the form cannot draw (combinators, `$ref`, arrays of arrays) is a
 * JSON field. Values are kept as typed; the server validates them, so the form blocks nothing.
 */
export interface SchemaFormProps {
  schema: any;
  value: Record<string, unknown>;
  onChange(value: Record<string, unknown>): void;
}

export function SchemaForm({ schema, value, onChange }: SchemaFormProps) {
  const properties = Object.entries<any>(schema?.properties ?? {});
  if (properties.length === 0) return <p class="muted">No arguments.</p>;
  const required = new Set<string>(schema.required ?? []);
  return (
    <div class="fields">
      {properties.map(([key, child]) => (
        <Field
          key={key}
          name={key}
          label={key}
          schema={child}
          required={required.has(key)}
          value={value[key]}
          onChange={(next) => onChange(withKey(value, key, next))}
        />
      ))}
    </div>
  );
}

function withKey(value: Record<string, unknown>, key: string, next: unknown): Record<string, unknown> {
  const copy = { ...value };
  if (next === undefined) delete copy[key];
  else copy[key] = next;
  return copy;
}

interface FieldProps {
  name: string;
  label: string;
  schema: any;
  required: boolean;
  value: unknown;
  onChange(value: unknown): void;
}

function typeOf(schema: any): string | undefined {
  if (Array.isArray(schema?.enum)) return 'enum';
  const type = Array.isArray(schema?.type) ? schema.type.find((t: string) => t !== 'null') : schema?.type;
  return typeof type === 'string' ? type : undefined;
}

function Field(props: FieldProps) {
  const { name, label, schema, required } = props;
  const type = typeOf(schema);
  const caption = (
    <span class="label">
      {label}
      {required ? <abbr title="required"> *</abbr> : null}
      {schema?.description ? <small> {schema.description}</small> : null}
    </span>
  );
  if (type === 'object' && schema.properties) {
    return (
      <fieldset>
        <legend>{caption}</legend>
        <SchemaForm
          schema={{ ...schema, properties: prefixed(schema.properties, name) }}
          value={unprefix((props.value as Record<string, unknown>) ?? {}, name)}
          onChange={(next) => props.onChange(Object.keys(next).length ? reprefix(next, name) : undefined)}
        />
      </fieldset>
    );
  }
  if (type === 'array' && ['string', 'number', 'integer', 'boolean', 'enum'].includes(typeOf(schema.items) ?? '')) {
    return <ArrayField {...props} caption={caption} />;
  }
  return (
    <label class="field">
      {caption}
      <Input {...props} type={type} />
    </label>
  );
}

// Nested inputs are named by their path; the values stay keyed by the property's own name.
function prefixed(properties: Record<string, any>, prefix: string): Record<string, any> {
  return Object.fromEntries(Object.entries(properties).map(([key, child]) => [`${prefix}.${key}`, child]));
}
function unprefix(value: Record<string, unknown>, prefix: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [`${prefix}.${key}`, child]));
}
function reprefix(value: Record<string, unknown>, prefix: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key.slice(prefix.length + 1), child]));
}

function Input({ name, schema, required, value, onChange, type }: FieldProps & { type: string | undefined }) {
  if (type === 'enum') {
    return (
      <select
        name={name}
        value={value === undefined ? '' : JSON.stringify(value)}
        onChange={(e) => {
          const raw = (e.target as HTMLSelectElement).value;
          onChange(raw === '' ? undefined : JSON.parse(raw));
        }}
      >
        <option value="">—</option>
        {schema.enum.map((option: unknown) => (
          <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  }
  if (type === 'boolean') {
    return (
      <input
        type="checkbox"
        name={name}
        checked={value === true}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
      />
    );
  }
  if (type === 'number' || type === 'integer') {
    return (
      <input
        type="number"
        name={name}
        step={type === 'integer' ? 1 : 'any'}
        value={typeof value === 'number' ? String(value) : ''}
        onInput={(e) => {
          const raw = (e.target as HTMLInputElement).value;
          onChange(raw === '' ? undefined : Number(raw));
        }}
      />
    );
  }
  if (type === 'string') {
    return (
      <input
        type="text"
        name={name}
        value={typeof value === 'string' ? value : ''}
        onInput={(e) => {
          const raw = (e.target as HTMLInputElement).value;
          // An empty required string is sent, so the server says what it expects of it.
          onChange(raw === '' && !required ? undefined : raw);
        }}
      />
    );
  }
  return <JsonInput name={name} value={value} onChange={onChange} />;
}

/** A value as JSON text; shown in red while it does not parse. */
export function JsonInput({
  name,
  value,
  onChange,
  rows = 3,
}: {
  name: string;
  value: unknown;
  onChange(value: unknown): void;
  rows?: number;
}) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <textarea
      name={name}
      rows={rows}
      class={bad ? 'json bad' : 'json'}
      value={text}
      onInput={(e) => {
        const raw = (e.target as HTMLTextAreaElement).value;
        setText(raw);
        if (raw.trim() === '') return (setBad(false), onChange(undefined));
        try {
          onChange(JSON.parse(raw));
          setBad(false);
        } catch {
          setBad(true);
        }
      }}
    />
  );
}

function ArrayField(props: FieldProps & { caption: preact.ComponentChild }) {
  const items = Array.isArray(props.value) ? props.value : [];
  const set = (next: unknown[]) => props.onChange(next.length ? next : undefined);
  return (
    <fieldset>
      <legend>{props.caption}</legend>
      {items.map((item, index) => (
        <div class="item" key={index}>
          <Input
            name={`${props.name}.${index}`}
            label={String(index)}
            schema={props.schema.items}
            required={true}
            value={item}
            type={typeOf(props.schema.items)}
            onChange={(next) => set(items.map((old, i) => (i === index ? next : old)))}
          />
          <button type="button" onClick={() => set(items.filter((_, i) => i !== index))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => set([...items, defaultOf(props.schema.items)])}>
        Add item
      </button>
    </fieldset>
  );
}

function defaultOf(schema: any): unknown {
  const type = typeOf(schema);
  if (type === 'boolean') return false;
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'enum') return schema.enum[0];
  return '';
}
