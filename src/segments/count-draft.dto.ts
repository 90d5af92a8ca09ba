import { IsDefined } from 'class-validator';
import { FreeFormValue } from '../platform/validation/free-form.decorator';

/** An unsaved segment filter, counted as the dashboard's rule builder changes (the live count). */
export class CountDraftDto {
  // Checked by the segment filter parser, which names problems by their path.
  @IsDefined()
  @FreeFormValue()
  filter!: unknown;
}
