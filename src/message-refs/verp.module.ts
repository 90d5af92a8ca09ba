import { Module } from '@nestjs/common';
import { VerpAddresses } from './verp-address';

/** VERP addresses, for the senders that put them on mail and the readers of what comes back. */
@Module({ providers: [VerpAddresses], exports: [VerpAddresses] })
export class VerpModule {}
