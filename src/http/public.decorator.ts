import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'turns:isPublic';

/** Exempts a route from the bearer token (only `/health`). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
