import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

/**
 * The daemon's OpenAPI document: every route, with the bearer scheme on each
 * one the token guards.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('nest-turn-status daemon')
    .setDescription('Sessions, prompt admission, events, and polling of turn status by promptId.')
    .setVersion('1')
    .setLicense('MIT', 'https://opensource.org/license/mit')
    .addServer('http://127.0.0.1:4170', 'The daemon on its default address')
    .addBearerAuth()
    .addSecurityRequirements('bearer')
    .build();
  return SwaggerModule.createDocument(app, config);
}
