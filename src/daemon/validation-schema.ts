import type { OpenAPIObject } from '@nestjs/swagger';
import { getMetadataStorage, type ValidationTypes } from 'class-validator';
import { isPresent } from '../validation/is-omittable.decorator.js';

type SchemaObject = Exclude<NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string], { $ref: string }>;
type Constraint = { name?: string; type: (typeof ValidationTypes)[keyof typeof ValidationTypes] | string; constraints?: unknown[] };

/** What one class-validator check says about a property's schema. */
function fragment({ name, constraints = [] }: Constraint): SchemaObject {
  const [first] = constraints as [never];
  switch (name) {
    case 'isString':
      return { type: 'string' };
    case 'isInt':
      return { type: 'integer' };
    case 'isPositive':
      return { minimum: 1 }; // only ever beside isInt
    case 'min':
      return { minimum: first };
    case 'max':
      return { maximum: first };
    case 'minLength':
      return { minLength: first };
    case 'maxLength':
      return { maxLength: first };
    case 'isIn':
      return { enum: first };
    case 'equals':
      return { enum: [first] };
    case 'isArray':
      return { type: 'array' };
    case 'arrayNotEmpty':
      return { minItems: 1 };
    default:
      return {};
  }
}

/**
 * The constraints `dto`'s class-validator decorators enforce, as OpenAPI:
 * each property's type, bounds, lengths and enum, and which are required —
 * every property but the ones marked `@IsOmittable()` (whose `null` is
 * refused, so none is nullable).
 */
export function validationSchema(dto: abstract new () => unknown): { properties: Record<string, SchemaObject>; required: string[] } {
  const properties: Record<string, SchemaObject> = {};
  const omittable = new Set<string>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(dto as never, '', true, false)) {
    if (meta.type === 'conditionalValidation' && meta.constraints?.[0] === isPresent) omittable.add(meta.propertyName);
    if (meta.each) continue;
    properties[meta.propertyName] = { ...properties[meta.propertyName], ...fragment(meta) };
  }
  return { properties, required: Object.keys(properties).filter((name) => !omittable.has(name)) };
}

/**
 * Rewrites the schemas of request DTOs in `document` from their validation:
 * what the server refuses is what the document forbids. Descriptions,
 * examples and item schemas stay as the `@ApiProperty()` declarations give
 * them.
 */
export function applyValidationSchemas(document: OpenAPIObject, dtos: ReadonlyArray<abstract new () => unknown>): void {
  for (const dto of dtos) {
    const schema = document.components?.schemas?.[dto.name] as SchemaObject | undefined;
    if (!schema) throw new Error(`no schema ${dto.name} in the OpenAPI document`);
    const derived = validationSchema(dto);
    for (const [name, constraints] of Object.entries(derived.properties)) {
      const declared = (schema.properties?.[name] ?? {}) as SchemaObject;
      const { nullable: _nullable, minimum: _min, maximum: _max, minLength: _minLength, maxLength: _maxLength, ...rest } = declared;
      schema.properties = { ...schema.properties, [name]: { ...rest, ...constraints } };
    }
    if (derived.required.length > 0) schema.required = derived.required;
    else delete schema.required;
  }
}
