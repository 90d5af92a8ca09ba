import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsString, MaxLength } from 'class-validator';
import { IMPORT_MAX_COLUMNS } from './imports.settings';
import { ImportsService } from './imports.service';

export class GuessColumnsDto {
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(IMPORT_MAX_COLUMNS)
  @IsString({ each: true })
  @MaxLength(1000, { each: true })
  headers!: string[];
}

/** What only the dashboard's import page needs; everything else is ImportsController. */
@ApiExcludeController()
@Controller('dashboard/api/imports')
export class ImportsDashboardController {
  constructor(private readonly imports: ImportsService) {}

  /**
   * The mapping step: the browser reads the header of the chosen file and shows where each
   * column would go, the same guess an upload without a mapping gets.
   */
  @Post('columns')
  @HttpCode(200)
  columns(@Body() body: GuessColumnsDto) {
    return { columns: this.imports.guessColumns(body.headers) };
  }
}
