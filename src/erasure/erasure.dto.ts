import { ApiProperty } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { EmailAddress } from '../platform/validation/email-address.decorator';

export class EraseIdentityDto {
  @ApiProperty({ format: 'idn-email', example: 'ada@example.com' })
  @IsDefined()
  @EmailAddress()
  email!: string;
}

export class ErasureReceiptDto {
  @ApiProperty({ description: 'Keyed hash of the normalised email: the tombstone.' })
  email_hash!: string;

  @ApiProperty({ format: 'date-time' })
  erased_at!: string;
}
