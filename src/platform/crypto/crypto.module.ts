import { Global, Module } from '@nestjs/common';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import { KeyedHasher } from './keyed-hasher';

@Global()
@Module({
  providers: [
    {
      provide: KeyedHasher,
      inject: [CONFIG],
      useFactory: (config: HeraldConfig) => new KeyedHasher(config.secret),
    },
  ],
  exports: [KeyedHasher],
})
export class CryptoModule {}
