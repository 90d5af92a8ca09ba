/** At most this many custom fields, of this many bytes in all, per subscriber. */
export const CUSTOM_FIELDS = { maxKeys: 100, maxBytes: 16 * 1024 };
/** Imported statistics: not named by the limits of custom fields, but stored and listed the same way. */
export const STATISTICS = { maxKeys: 100, maxBytes: 16 * 1024 };
