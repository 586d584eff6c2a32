import type * as Swagger from '@nestjs/swagger';
import { ownRequire } from './own-require.js';

/**
 * The `@nestjs/swagger` decorators the package's routes and DTOs use. The
 * package is an optional peer: a host without it (a stock `nest new` project)
 * mounts `TurnsModule` all the same, its routes just describe nothing.
 */
export type SwaggerDecorators = Pick<
  typeof Swagger,
  | 'ApiAcceptedResponse'
  | 'ApiCreatedResponse'
  | 'ApiExcludeEndpoint'
  | 'ApiExtraModels'
  | 'ApiHeader'
  | 'ApiNoContentResponse'
  | 'ApiOkResponse'
  | 'ApiOperation'
  | 'ApiParam'
  | 'ApiProduces'
  | 'ApiProperty'
  | 'ApiPropertyOptional'
  | 'ApiQuery'
  | 'ApiResponse'
  | 'ApiTags'
  | 'DECORATORS'
  | 'getSchemaPath'
>;

export const SWAGGER_PACKAGE = '@nestjs/swagger';

/** A decorator factory that records nothing (class, method, property or parameter alike). */
const recordsNothing = () => () => undefined;

const STUBS = {
  ApiAcceptedResponse: recordsNothing,
  ApiCreatedResponse: recordsNothing,
  ApiExcludeEndpoint: recordsNothing,
  ApiExtraModels: recordsNothing,
  ApiHeader: recordsNothing,
  ApiNoContentResponse: recordsNothing,
  ApiOkResponse: recordsNothing,
  ApiOperation: recordsNothing,
  ApiParam: recordsNothing,
  ApiProduces: recordsNothing,
  ApiProperty: recordsNothing,
  ApiPropertyOptional: recordsNothing,
  ApiQuery: recordsNothing,
  ApiResponse: recordsNothing,
  ApiTags: recordsNothing,
  // Its metadata keys (nothing is recorded under them without the peer).
  DECORATORS: { API_MODEL_PROPERTIES_ARRAY: 'swagger/apiModelPropertiesArray' },
  // The same reference @nestjs/swagger writes, so a schema built elsewhere still resolves it.
  getSchemaPath: (model: string | (abstract new (...args: never[]) => unknown)) =>
    `#/components/schemas/${typeof model === 'string' ? model : model.name}`,
} as unknown as SwaggerDecorators;

/** True when `error` says `name` itself is not installed (not one of its own dependencies). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  return new RegExp(`Cannot find (?:package|module) '${name.replace(/[/.]/g, '\\$&')}'`).test((error as Error).message);
}

/**
 * The real decorators when `load` finds `@nestjs/swagger`, else ones that
 * record nothing. Any other failure (a broken install) is thrown as is.
 */
export function loadSwaggerDecorators(load: (name: string) => unknown): SwaggerDecorators {
  try {
    return load(SWAGGER_PACKAGE) as SwaggerDecorators;
  } catch (error) {
    if (!isMissingPackage(error, SWAGGER_PACKAGE)) throw error;
    return STUBS;
  }
}

// Decorators run while classes are defined, so the peer is loaded synchronously (@nestjs/swagger 12 is
// ESM-only, which require() loads on Node >= 20.19).
export const {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiExcludeEndpoint,
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  ApiResponse,
  ApiTags,
  DECORATORS,
  getSchemaPath,
} = loadSwaggerDecorators(ownRequire);
