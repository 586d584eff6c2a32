import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { Equals, IsString, MaxLength } from 'class-validator';
import { IsOmittable } from '../validation/is-omittable.decorator.js';

/** A property that is `true` or absent. */
export function TrueFlag(description: string): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ enum: [true], type: Boolean, description })(target, key);
    IsOmittable()(target, key);
    Equals(true)(target, key);
  };
}

/** A string property cut to `maxLength` UTF-16 code units. */
export function LimitedText(
  maxLength: number,
  options: { required?: boolean; description?: string; example?: string; format?: string } = {},
): PropertyDecorator {
  const { required = false, ...doc } = options;
  return (target, key) => {
    (required ? ApiProperty : ApiPropertyOptional)({ type: String, maxLength, ...doc })(target, key);
    if (!required) IsOmittable()(target, key);
    IsString()(target, key);
    MaxLength(maxLength)(target, key);
  };
}
