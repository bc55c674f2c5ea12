/** Payloads the conformance scenarios assert on, in one place (`conformance.md` §4 of the shared notes). */

/** A 1×1 PNG, base64. */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV file, base64. */
export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/**
 * The canonical schema of the json-schema-2020-12 scenario, published verbatim: the scenario checks that
 * `$schema`, `$defs` with `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else` and `additionalProperties` survive.
 */
export const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** The forms the elicitation tools ask the user to fill in. */
export const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
export const COLOR_FORM = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] };
export const CONFIRM_FORM = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
export const CONTEXT_FORM = { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] };

/** test_elicitation's form (tools-call-elicitation). */
export const USER_FORM = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
};

/** A default for every primitive type (elicitation-sep1034-defaults). */
export const DEFAULTS_FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
};

/** The five enum shapes of elicitation-sep1330-enums, the deprecated `enumNames` one included. */
export const ENUM_VARIANTS_FORM = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Titled single-select',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Legacy titled enum',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Untitled multi-select',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Titled multi-select',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

/** The confirmation the tasks scenarios answer (`{ confirm: true }`). */
export const DELETE_CONFIRM_FORM = {
  type: 'object',
  properties: { confirm: { type: 'boolean' } },
  required: ['confirm'],
};

/**
 * The extensions `server-legacy-extensions` expects in the 2025-11-25 `initialize` result, settings and all:
 * MCP Apps, and two made-up ones whose settings no library could know in advance (a null among them).
 */
export const SERVER_EXTENSIONS = {
  'io.modelcontextprotocol/ui': {},
  'com.example/conformance': { nested: { enabled: true, limit: 3 }, values: [null, 'b', 4] },
  'com.example/empty': {},
};
