import { applyDecorators } from '@nestjs/common';
import { IsDefined, IsString, MaxLength } from 'class-validator';

/**
 * A password typed into a dashboard form (sign-up, sign-in, accepting an invitation, a reset).
 * Only bounded here: the length rules live in UsersService, shared with the operator CLI.
 */
export function PasswordField() {
  return applyDecorators(IsDefined(), IsString(), MaxLength(255));
}
