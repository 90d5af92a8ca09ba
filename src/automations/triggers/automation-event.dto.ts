import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  Allow,
  IsDefined,
  IsEmail,
  IsNotEmpty,
  IsObject,
  IsString,
  MaxLength,
} from 'class-validator';
import { Omittable } from '../../platform/validation/omittable.decorator';

export class CreateEventDto {
  @ApiProperty({ example: 'order_placed' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiPropertyOptional({ description: 'The subscriber, by email (or subscriber_id).' })
  @Omittable()
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email?: string;

  @ApiPropertyOptional({ description: 'The subscriber, by id (or email).' })
  @Omittable()
  @IsString()
  @MaxLength(64)
  subscriber_id?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @Omittable()
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
