import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { Omittable } from './omittable.decorator';

/** The longest name a person may give a campaign, segment, template or automation. */
export const RESOURCE_NAME_MAX = 255;

/** The name a person gives a campaign, segment, template or automation it creates. */
export function ResourceName(example: string): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example }),
    IsDefined(),
    IsString(),
    IsNotEmpty(),
    MaxLength(RESOURCE_NAME_MAX),
  );
}

/** A new name in an update: may be left out; given, it follows the rule of ResourceName. */
export function ResourceRename(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional(),
    Omittable(),
    IsString(),
    IsNotEmpty(),
    MaxLength(RESOURCE_NAME_MAX),
  );
}
