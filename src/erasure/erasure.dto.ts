import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsEmail, MaxLength } from 'class-validator';

export class EraseIdentityDto {
  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  @IsDefined()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;
}

export class ErasureReceiptDto {
  @ApiProperty({ description: 'Keyed hash of the normalised email: the tombstone.' })
  email_hash!: string;

  @ApiProperty({ format: 'date-time' })
  erased_at!: string;
}
