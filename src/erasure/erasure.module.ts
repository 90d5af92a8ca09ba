import { Module } from '@nestjs/common';
import { ErasedIdentitiesRepository } from './erased-identities.repository';
import { ErasureGuard } from './erasure-guard';
import { ErasureRegistry } from './erasure-participant';
import { ErasureService } from './erasure.service';

@Module({
  providers: [ErasedIdentitiesRepository, ErasureGuard, ErasureRegistry, ErasureService],
  exports: [ErasureGuard, ErasureRegistry, ErasureService],
})
export class ErasureModule {}
