import { ValidateIf } from 'class-validator';

/** The condition of {@link IsOmittable}: validate unless the field is absent. */
export const isPresent = (_object: unknown, value: unknown): boolean => value !== undefined;

/**
 * Like `@IsOptional()`, but only an absent field skips validation: the wire
 * never carries `null`, so a `null` field fails the field's own checks.
 */
export const IsOmittable = (): PropertyDecorator => ValidateIf(isPresent);
