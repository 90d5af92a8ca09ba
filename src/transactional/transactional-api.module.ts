import { Module } from '@nestjs/common';
import { TransactionalController } from './transactional.controller';
import { TransactionalModule } from './transactional.module';

/** The HTTP surface: POST /v1/transactional/send and GET /v1/transactional/{id}. API processes only, so a worker never loads its controllers. */
@Module({
  imports: [TransactionalModule],
  controllers: [TransactionalController],
})
export class TransactionalApiModule {}
