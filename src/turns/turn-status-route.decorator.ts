import { applyDecorators, Get, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiResponse, ApiBadRequestResponse } from '@nestjs/swagger';
import { ClientIdGuard } from '../clients/client-id.guard.js';
import { DEFAULT_CLIENT_ID_HEADER } from '../clients/client-id-options.js';
import { ErrorResponseDto, TurnStatusDto } from './turn-status.dto.js';
import { TurnStatusHttpInterceptor } from './turn-status-http.interceptor.js';

/**
 * One turn status route: GET, guarded by {@link ClientIdGuard}, with the HTTP
 * conventions of {@link TurnStatusHttpInterceptor} and its OpenAPI responses.
 */
export function TurnStatusRoute(path: string, notFound: string): MethodDecorator {
  return applyDecorators(
    Get(path),
    UseGuards(ClientIdGuard),
    UseInterceptors(TurnStatusHttpInterceptor),
    ApiHeader({ name: DEFAULT_CLIENT_ID_HEADER, required: false, description: 'Client id issued by POST /session.' }),
    ApiOkResponse({ type: TurnStatusDto, description: 'Turn status. Cache-Control: no-cache; ETag; Retry-After while queued or running.' }),
    ApiResponse({ status: 304, description: 'If-None-Match matched the current ETag.' }),
    ApiBadRequestResponse({ type: ErrorResponseDto, description: 'invalid_client_id, invalid_transcript_cursor' }),
    ApiNotFoundResponse({ type: ErrorResponseDto, description: notFound }),
    ApiResponse({ status: 409, type: ErrorResponseDto, description: 'transcript_snapshot_unavailable' }),
    ApiResponse({ status: 413, type: ErrorResponseDto, description: 'transcript_page_too_large, transcript_too_large' }),
  );
}
