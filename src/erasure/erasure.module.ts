import { Module } from '@nestjs/common';
import { ErasureController } from './erasure.controller';
import { ErasureGuard } from './erasure-guard';
import { ErasureService } from './erasure.service';

@Module({
  controllers: [ErasureController],
  providers: [ErasureGuard, ErasureService],
  exports: [ErasureGuard, ErasureService],
})
export class ErasureModule {}
