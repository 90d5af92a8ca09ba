import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsString,
  MaxLength,
  MinLength,
} from 'class-validator';
import { SCOPES } from '../../auth/scopes';

export class CreateKeyDto {
  @IsDefined()
  @IsString()
  @MinLength(1, { message: 'Give the key a name.' })
  @MaxLength(100)
  name!: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1, { message: 'Choose at least one scope.' })
  @ArrayMaxSize(SCOPES.length)
  @IsIn(SCOPES, { each: true, message: 'Unknown scope.' })
  scopes!: string[];
}
