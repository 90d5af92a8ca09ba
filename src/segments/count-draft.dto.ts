import { Allow, IsDefined } from 'class-validator';

/** An unsaved segment filter, counted as the dashboard's rule builder changes (the live count). */
export class CountDraftDto {
  // Checked by the segment filter parser, which names problems by their path.
  @IsDefined()
  @Allow()
  filter!: unknown;
}
