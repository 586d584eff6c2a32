import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * Thrown when `If-None-Match` matches; answered as a bodiless `304` (by any
 * exception filter: Node sends no body with a 304).
 */
export class NotModifiedException extends HttpException {
  constructor(readonly etag: string) {
    super('Not Modified', HttpStatus.NOT_MODIFIED);
  }
}
