import { CanActivate, ExecutionContext, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiException } from '../common/api-exception.js';
import { IS_PUBLIC } from './public.decorator.js';

export const BEARER_TOKEN = Symbol('BEARER_TOKEN');

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * When a token is configured, every route but the public ones needs
 * `Authorization: Bearer <token>`. Digests of equal length are compared in
 * constant time, and missing, malformed and wrong tokens get the same answer.
 */
@Injectable()
export class BearerTokenGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(
    private readonly reflector: Reflector,
    @Inject(BEARER_TOKEN) token: string | undefined,
  ) {
    this.expected = token ? digest(token) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const header = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/.exec(header) : null;
    const presented = digest(match?.[1] ?? '');
    if (match && timingSafeEqual(presented, this.expected)) return true;
    throw new ApiException(HttpStatus.UNAUTHORIZED, 'unauthorized', 'Unauthorized');
  }
}
