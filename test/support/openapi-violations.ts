import { randomUUID } from 'node:crypto';

/** A JSON Schema object of the document, loosely typed. */
export type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One way to break a valid example: where (a property path) and the value put there (`undefined` removes it). */
export interface Violation {
  label: string;
  path: Array<string | number>;
  value: unknown;
}

/** The schema a `$ref` names, or the schema itself. */
export function resolve(doc: Schema, schema: Schema): Schema {
  return schema.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)] : schema;
}

/** The smallest value the schema allows: required properties only, first `oneOf` alternative, lower bounds. */
export function minimalExample(doc: Schema, schema: Schema): unknown {
  const s = resolve(doc, schema);
  if (s.oneOf) return minimalExample(doc, s.oneOf[0]);
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'object':
      return Object.fromEntries((s.required ?? []).map((key: string) => [key, minimalExample(doc, s.properties[key])]));
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => minimalExample(doc, s.items));
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    case 'boolean':
      return true;
    default:
      return s.format === 'uuid' ? randomUUID() : 'x'.repeat(Math.max(1, s.minLength ?? 0));
  }
}

/** The values that break each constraint `schema` states about one value (not its children). */
function brokenValues(s: Schema): Array<[string, unknown]> {
  const broken: Array<[string, unknown]> = [];
  if (!s.nullable) broken.push(['null', null]);
  const wrongType: Record<string, unknown> = { string: 5, integer: 'x', number: 'x', array: 'x', object: 'x', boolean: 'x' };
  if (s.type in wrongType) broken.push([`not ${s.type}`, wrongType[s.type]]);
  if (s.type === 'integer') broken.push(['fraction', 1.5]);
  if (s.enum) broken.push(['not in enum', 'not-in-the-enum']);
  if (s.minimum !== undefined) broken.push([`below minimum ${s.minimum}`, s.minimum - 1]);
  if (s.maximum !== undefined) broken.push([`above maximum ${s.maximum}`, s.maximum + 1]);
  if (s.minLength > 0) broken.push([`shorter than ${s.minLength}`, 'x'.repeat(s.minLength - 1)]);
  if (s.maxLength !== undefined) broken.push([`longer than ${s.maxLength}`, 'x'.repeat(s.maxLength + 1)]);
  if (s.minItems > 0) broken.push([`fewer than ${s.minItems} items`, []]);
  if (s.format === 'uuid') broken.push(['not a uuid', 'not-a-uuid']);
  if (s.pattern !== undefined) {
    // The first of a few values the pattern refuses (a header can carry each of them).
    const refused = ['!', 'not matching', 'x'.repeat(1_000)].find((value) => !new RegExp(s.pattern!).test(value));
    if (refused !== undefined) broken.push([`not matching ${s.pattern}`, refused]);
  }
  return broken;
}

/**
 * Every documented constraint of `schema` broken once, each applied to the
 * minimal example: a required property left out, a type, bound, length,
 * enum, format or pattern missed, inside objects, array items and each
 * `oneOf` alternative (the alternative's minimal example is put in place first).
 */
export function violations(doc: Schema, schema: Schema, path: Array<string | number> = []): Array<Violation & { base?: Violation }> {
  const s = resolve(doc, schema);
  const here = path.join('.') || 'body';
  if (s.oneOf) {
    return s.oneOf.flatMap((alternative: Schema) => {
      const base = {
        label: `${here} as ${resolve(doc, alternative).properties?.type?.enum?.[0] ?? 'alternative'}`,
        path,
        value: minimalExample(doc, alternative),
      };
      return violations(doc, alternative, path).map((v) => ({ ...v, base }));
    });
  }
  const own = brokenValues(s).map(([label, value]) => ({ label: `${here}: ${label}`, path, value }));
  if (s.type === 'object') {
    for (const [key, property] of Object.entries<Schema>(s.properties ?? {})) {
      if (s.required?.includes(key)) own.push({ label: `${here}.${key}: missing`, path: [...path, key], value: undefined });
      own.push(...violations(doc, property, [...path, key]));
    }
  }
  if (s.type === 'array' && s.items) own.push(...violations(doc, s.items, [...path, 0]));
  return own;
}

/** A copy of `example` with `value` at `path` (removed when `undefined`); missing containers are created. */
export function withValue(example: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(example ?? (typeof path[0] === 'number' ? [] : {})) as Record<string | number, unknown>;
  const [head, ...rest] = path;
  if (rest.length === 0 && value === undefined) delete copy[head!];
  else copy[head!] = withValue(copy[head!], rest, value);
  return copy;
}
