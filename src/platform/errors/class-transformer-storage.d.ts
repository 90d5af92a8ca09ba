// class-transformer keeps its @Type metadata in this module but ships no typings for the
// path; the validation pipe reads it to find the DTO class of a nested field.
declare module 'class-transformer/cjs/storage' {
  export const defaultMetadataStorage: import('class-transformer/types/MetadataStorage').MetadataStorage;
}
