import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  Allow,
  IsDefined,
  IsEmail,
  IsNotEmpty,
  IsObject,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';

const present = (_: object, value: unknown) => value !== undefined;

export class CreateEventDto {
  @ApiProperty({ example: 'order_placed' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiPropertyOptional({ description: 'The subscriber, by email (or subscriber_id).' })
  @ValidateIf(present)
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email?: string;

  @ApiPropertyOptional({ description: 'The subscriber, by id (or email).' })
  @ValidateIf(present)
  @IsString()
  @MaxLength(64)
  subscriber_id?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @ValidateIf(present)
  @IsObject()
  @Allow()
  properties?: Record<string, unknown>;
}

export class EventResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() subscriber_id!: string;
  @ApiProperty() occurred_at!: string;
}
