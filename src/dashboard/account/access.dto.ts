import { IsDefined, IsEmail, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { PersonRole } from '../../auth/principal';
import { ROLES } from '../people/roles';
import { PasswordField } from './password-field.decorator';

/** PATCH /dashboard/api/people/{id}: the person's new role. */
export class UpdatePersonDto {
  @IsDefined()
  @IsIn(ROLES, { message: `role must be one of: ${ROLES.join(', ')}` })
  role!: PersonRole;
}

export class CreateInvitationDto {
  @IsDefined()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;
}

/** The token from a link: checked by the service, only bounded here. */
export class LinkTokenDto {
  @IsDefined()
  @IsString()
  @MaxLength(100)
  token!: string;
}

export class AcceptInvitationDto extends LinkTokenDto {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @PasswordField()
  password!: string;
}

export class PasswordResetRequestDto {
  /** Any string up to an address's length: a malformed one is answered like an unknown one. */
  @IsDefined()
  @IsString()
  @MaxLength(254)
  email!: string;
}

export class PasswordResetCompleteDto extends LinkTokenDto {
  @PasswordField()
  password!: string;
}
