import { IsDefined, IsEmail, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PasswordField } from './password-field.decorator';

export class SignUpDto {
  @IsDefined()
  @IsString()
  @MinLength(1, { message: 'Give your organisation a name.' })
  @MaxLength(200)
  account_name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @IsDefined()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;

  @PasswordField()
  password!: string;
}

export class SignInDto {
  @IsDefined()
  @IsString()
  @MaxLength(254)
  email!: string;

  @PasswordField()
  password!: string;
}
