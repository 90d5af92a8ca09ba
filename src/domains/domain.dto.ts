import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, registerDecorator } from 'class-validator';
import { normalizeDomainName } from './domain-name';

export class CreateDomainDto {
  @ApiProperty({
    example: 'acme.example',
    description: 'The domain mail will be sent from; lower-cased, an IDN may be given in Unicode.',
  })
  @IsDefined()
  @IsString()
  @HostName()
  name!: string;
}

/** A host name as normalizeDomainName accepts it; 422 invalid_format otherwise. */
function HostName(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      // Named like class-validator's pattern check, so the detail code is invalid_format.
      name: 'matches',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: 'name must be a domain name such as acme.example (no scheme, path or address)',
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && normalizeDomainName(value) !== undefined,
      },
    });
  };
}
