import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined } from 'class-validator';
import { CreateSubscriberDto } from './subscriber.dto';

export const BATCH_MAX_ITEMS = 1000;

/**
 * `POST /v1/subscribers/batch`: subscribers to create or update by email. Each item is
 * validated on its own, with the rules of `POST /v1/subscribers`, and gets its own result:
 * one bad item never fails the others.
 */
export class BatchSubscribersDto {
  @ApiProperty({
    type: [CreateSubscriberDto],
    description:
      'Subscribers to create, or to update (PATCH semantics) when their email exists: ' +
      `1 to ${BATCH_MAX_ITEMS} items, within the 1 MiB body limit.`,
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BATCH_MAX_ITEMS)
  subscribers!: unknown[];
}

export class BatchErrorDto {
  @ApiProperty({ example: 'email' }) field!: string;
  @ApiProperty({ example: 'erased' }) code!: string;
  @ApiProperty() message!: string;
}

export class BatchResultDto {
  @ApiProperty({ type: 'integer', description: "The item's index in `subscribers`." })
  index!: number;

  @ApiProperty({ enum: ['created', 'updated', 'failed'] })
  status!: 'created' | 'updated' | 'failed';

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The subscriber written (or left as it was); null when none.',
  })
  id!: string | null;

  @ApiProperty({
    type: [BatchErrorDto],
    nullable: true,
    description:
      'Why the item failed, one entry per field, as a 422 would name them (`erased` on ' +
      '`email` for an erased identity); null unless `status` is `failed`.',
  })
  errors!: BatchErrorDto[] | null;
}

export class BatchResponse {
  @ApiProperty({ type: [BatchResultDto], description: 'One result per item, in order.' })
  results!: BatchResultDto[];
}
