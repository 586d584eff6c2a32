import * as Swagger from '@nestjs/swagger';
import { isMissingPackage, loadSwaggerDecorators } from './swagger.js';

/** What Node throws for a package that is not installed. */
function notFound(name: string, code = 'ERR_MODULE_NOT_FOUND'): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/x.js`), { code });
}

describe('loadSwaggerDecorators', () => {
  it('gives the real decorators when @nestjs/swagger is installed', () => {
    const asked: string[] = [];
    const decorators = loadSwaggerDecorators((name) => (asked.push(name), Swagger));
    expect(asked).toEqual(['@nestjs/swagger']);
    expect(decorators.ApiProperty).toBe(Swagger.ApiProperty);
  });

  it('gives decorators that record nothing when it is not installed (CommonJS or ESM wording)', () => {
    for (const code of ['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND']) {
      const decorators = loadSwaggerDecorators(() => {
        throw notFound('@nestjs/swagger', code);
      });
      class Dto {
        @decorators.ApiProperty({ description: 'x' })
        x = 1;
      }
      expect(Reflect.getMetadataKeys(Dto.prototype, 'x')).toEqual([]);
      expect(decorators.ApiTags('t')(Dto)).toBeUndefined();
      expect(decorators.getSchemaPath(Dto)).toBe(Swagger.getSchemaPath(Dto));
      expect(decorators.getSchemaPath('Named')).toBe('#/components/schemas/Named');
    }
  });

  it('throws a broken install as is: a dependency of @nestjs/swagger missing, or another error', () => {
    const missingDependency = notFound('swagger-ui-dist');
    expect(() =>
      loadSwaggerDecorators(() => {
        throw missingDependency;
      }),
    ).toThrow(missingDependency);
    expect(() =>
      loadSwaggerDecorators(() => {
        throw new SyntaxError('Unexpected token');
      }),
    ).toThrow(SyntaxError);
  });
});

describe('isMissingPackage', () => {
  it('names the package exactly, not a prefix of it', () => {
    expect(isMissingPackage(notFound('@nestjs/swagger'), '@nestjs/swagger')).toBe(true);
    expect(isMissingPackage(notFound('@nestjs/swagger-ui'), '@nestjs/swagger')).toBe(false);
    expect(isMissingPackage(new Error("Cannot find package '@nestjs/swagger'"), '@nestjs/swagger')).toBe(false);
  });
});
