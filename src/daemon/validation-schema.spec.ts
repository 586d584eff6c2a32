import { ArrayNotEmpty, Equals, IsArray, IsIn, IsInt, IsPositive, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import type { OpenAPIObject } from '@nestjs/swagger';
import { IsOmittable } from '../validation/is-omittable.decorator.js';
import { applyValidationSchemas, validationSchema } from './validation-schema.js';

class ExampleDto {
  @IsString() @MinLength(1) @MaxLength(8) name!: string;
  @IsOmittable() @IsInt() @IsPositive() count?: number;
  @IsOmittable() @IsInt() @Min(0) @Max(10) level?: number;
  @IsIn(['a', 'b']) kind!: string;
  @Equals('x') tag!: 'x';
  @IsArray() @ArrayNotEmpty() @IsString({ each: true }) items!: string[];
}

describe('validationSchema', () => {
  it('states what the decorators enforce, and requires every property not marked omittable', () => {
    expect(validationSchema(ExampleDto)).toEqual({
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 8 },
        count: { type: 'integer', minimum: 1 },
        level: { type: 'integer', minimum: 0, maximum: 10 },
        kind: { enum: ['a', 'b'] },
        tag: { enum: ['x'] },
        items: { type: 'array', minItems: 1 },
      },
      required: expect.arrayContaining(['name', 'kind', 'tag', 'items']),
    });
    expect(validationSchema(ExampleDto).required).toHaveLength(4);
  });

  it('rewrites a declared schema: bounds and nullability from validation, descriptions kept', () => {
    const document = {
      components: {
        schemas: {
          ExampleDto: {
            type: 'object',
            properties: {
              count: { type: 'number', nullable: true, maximum: 300000, description: 'kept' },
              items: { type: 'array', items: { type: 'string' } },
            },
            required: ['count'],
          },
        },
      },
    } as unknown as OpenAPIObject;
    applyValidationSchemas(document, [ExampleDto]);
    const schema = document.components!.schemas!.ExampleDto as { properties: Record<string, unknown>; required: string[] };
    expect(schema.properties.count).toEqual({ type: 'integer', minimum: 1, description: 'kept' });
    expect(schema.properties.items).toEqual({ type: 'array', minItems: 1, items: { type: 'string' } });
    expect(schema.required).not.toContain('count');
  });

  it('refuses a DTO the document does not show', () => {
    expect(() => applyValidationSchemas({ components: { schemas: {} } } as unknown as OpenAPIObject, [ExampleDto])).toThrow(/ExampleDto/);
  });
});
