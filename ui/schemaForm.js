// @ts-check
// A form from a method's params (OpenRPC by-name params, each with a JSON Schema from TypeBox):
// strings, numbers and integers get inputs, booleans and enums a select, anything else (objects,
// arrays, unions of shapes) a JSON textarea. read() turns the form back into params.
import { h } from './dom.js';

/**
 * @typedef {{ type?: string | string[], anyOf?: JsonSchema[], enum?: unknown[], const?: unknown,
 *   default?: unknown, description?: string, maxLength?: number, minimum?: number, maximum?: number }} JsonSchema
 * @typedef {{ name: string, description?: string, required?: boolean, schema: JsonSchema }} MethodParam
 * @typedef {{ name: string, kind: 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json', required: boolean }} Field
 */

/** Strings that may be longer than this (or have no bound) get a textarea: scripts, bodies. */
const LONG_STRING = 10_000;

/**
 * The choices of an enum-like schema (enum, or anyOf of consts), or undefined.
 * @param {JsonSchema} schema
 * @returns {unknown[] | undefined}
 */
function choices(schema) {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0 && schema.anyOf.every((s) => 'const' in s))
    return schema.anyOf.map((s) => s.const);
  return undefined;
}

/** @param {JsonSchema} schema @returns {Field['kind']} */
export function kindOf(schema) {
  if (choices(schema) !== undefined) return 'enum';
  const type = schema.type;
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type;
  return 'json';
}

/**
 * Builds the fields of `params` into `container`; `defaults` fills values by name (session_id).
 * @param {HTMLElement} container
 * @param {MethodParam[]} params
 * @param {Record<string, string>} defaults
 * @returns {Field[]}
 */
export function buildForm(container, params, defaults) {
  /** @type {Field[]} */
  const fields = [];
  container.replaceChildren();
  for (const param of params) {
    const schema = param.schema ?? {};
    const kind = kindOf(schema);
    const required = param.required === true;
    const id = `param-${param.name}`;
    const hint = [
      schema.type ? String(schema.type) : kind,
      required ? 'required' : 'optional',
      schema.default === undefined ? '' : `default ${JSON.stringify(schema.default)}`,
    ]
      .filter(Boolean)
      .join(', ');
    /** @type {HTMLElement} */
    let input;
    if (kind === 'enum' || kind === 'boolean') {
      const values = kind === 'boolean' ? [true, false] : (choices(schema) ?? []);
      input = h('select', { id, name: param.name }, [
        h('option', { value: '', text: required ? '(choose)' : '(not set)' }),
        ...values.map((v) => h('option', { value: JSON.stringify(v), text: String(v) })),
      ]);
    } else if (kind === 'json') {
      input = h('textarea', { id, name: param.name, rows: 3, spellcheck: 'false', placeholder: 'JSON' });
    } else if (kind === 'string' && (schema.maxLength ?? Infinity) > LONG_STRING) {
      input = h('textarea', { id, name: param.name, rows: 2, spellcheck: 'false' });
    } else {
      input = h('input', {
        id,
        name: param.name,
        type: kind === 'string' ? 'text' : 'number',
        step: kind === 'integer' ? 1 : kind === 'number' ? 'any' : undefined,
        min: schema.minimum,
        max: schema.maximum,
        spellcheck: 'false',
      });
    }
    const preset = defaults[param.name];
    if (preset !== undefined && (input instanceof HTMLInputElement || input instanceof HTMLTextAreaElement))
      input.value = preset;
    container.append(
      h('div', { class: 'field' }, [
        h('label', { for: id }, [
          h('code', { text: param.name }),
          h('span', { class: 'muted', text: ` ${hint}` }),
        ]),
        input,
        param.description ? h('p', { class: 'help', text: param.description }) : null,
      ]),
    );
    fields.push({ name: param.name, kind, required });
  }
  return fields;
}

/**
 * The params the form holds: empty fields are left out; a value that does not parse throws.
 * @param {HTMLFormElement} form
 * @param {Field[]} fields
 * @returns {Record<string, unknown>}
 */
export function readForm(form, fields) {
  /** @type {Record<string, unknown>} */
  const params = {};
  for (const field of fields) {
    const el = form.elements.namedItem(field.name);
    if (!(
      el instanceof HTMLInputElement ||
      el instanceof HTMLSelectElement ||
      el instanceof HTMLTextAreaElement
    ))
      continue;
    const raw = el.value;
    if (raw.trim() === '') continue;
    if (field.kind === 'string') params[field.name] = raw;
    else if (field.kind === 'number' || field.kind === 'integer') params[field.name] = Number(raw);
    else {
      try {
        params[field.name] = JSON.parse(raw);
      } catch {
        throw new Error(`${field.name} is not valid JSON`);
      }
    }
  }
  return params;
}
