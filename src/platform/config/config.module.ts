import { Global, Module } from '@nestjs/common';
import { HeraldConfig, loadConfig } from './config';

/** Injection token for the typed, validated configuration. */
export const CONFIG = Symbol('HeraldConfig');

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: HeraldConfig = loadConfig()) {
    return {
      module: ConfigModule,
      providers: [{ provide: CONFIG, useValue: config }],
      exports: [CONFIG],
    };
  }
}
