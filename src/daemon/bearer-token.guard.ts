import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { apiError } from '../errors/api-errors.js';
import { BearerToken } from './bearer-token.js';
import { IS_PUBLIC } from './public.decorator.js';

export const BEARER_TOKEN = Symbol('BEARER_TOKEN');

/**
 * When a token is configured, every route but the public ones needs
 * `Authorization: Bearer <token>`; otherwise `401 unauthorized`.
 */
@Injectable()
export class BearerTokenGuard implements CanActivate {
  private readonly token?: BearerToken;

  constructor(
    private readonly reflector: Reflector,
    @Inject(BEARER_TOKEN) token: string | undefined,
  ) {
    this.token = token ? new BearerToken(token) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.token) return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    if (this.token.accepts(context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers.authorization)) return true;
    throw apiError('unauthorized');
  }
}
