import { Module } from '@nestjs/common';
import { ErasureController } from './erasure.controller';
import { ErasureModule } from './erasure.module';

/** The HTTP surface: POST /v1/erasures. API processes only, so a worker never loads its controllers. */
@Module({
  imports: [ErasureModule],
  controllers: [ErasureController],
})
export class ErasureApiModule {}
