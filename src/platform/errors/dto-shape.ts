import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage } from 'class-validator';

/** What the validation pipe needs to know about a DTO class before it copies a body into it. */
export interface DtoShape {
  /** Fields with at least one validation decorator: the only ones a body may carry. */
  fields: ReadonlySet<string>;
  /** Lists with an @ArrayMaxSize: longer ones are refused before anything copies them. */
  maxItems: ReadonlyMap<string, number>;
  /** Fields holding another DTO (or a list of them), through @ValidateNested and @Type. */
  nested: ReadonlyMap<string, () => DtoShape>;
}

/** A DTO class: constructed by class-transformer, described by class-validator. */
export type DtoClass = abstract new (...args: never[]) => unknown;

const shapes = new WeakMap<DtoClass, DtoShape>();

export function describeDto(dto: DtoClass): DtoShape {
  const known = shapes.get(dto);
  if (known) return known;
  const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const maxItems = new Map<string, number>();
  const nested = new Map<string, () => DtoShape>();
  for (const entry of metadata) {
    if (entry.name === 'arrayMaxSize' && !entry.each) {
      maxItems.set(entry.propertyName, Number(entry.constraints[0]));
    }
    if (entry.type === 'nestedValidation') {
      const type = defaultMetadataStorage.findTypeMetadata(dto, entry.propertyName);
      const itemClass = type?.typeFunction() as DtoClass | undefined;
      if (itemClass) nested.set(entry.propertyName, () => describeDto(itemClass));
    }
  }
  const shape: DtoShape = {
    fields: new Set(metadata.map((entry) => entry.propertyName)),
    maxItems,
    nested,
  };
  shapes.set(dto, shape);
  return shape;
}
