import { Module } from '@nestjs/common';
import { ErasureController } from './erasure.controller';
import { ErasureGuard } from './erasure-guard';
import { ErasureRegistry } from './erasure-participant';
import { ErasureService } from './erasure.service';

@Module({
  controllers: [ErasureController],
  providers: [ErasureGuard, ErasureRegistry, ErasureService],
  exports: [ErasureGuard, ErasureRegistry, ErasureService],
})
export class ErasureModule {}
