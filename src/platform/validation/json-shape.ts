/** What a JSON request body may be, checked on its text before it is parsed. */
export const JSON_LIMITS = {
  /** Bytes; Fastify refuses a longer body before reading it. */
  maxBytes: 1024 * 1024,
  /** Objects and arrays nested in each other. */
  maxDepth: 32,
  /** Keys of any one object: libraries that copy objects key by key slow down past this. */
  maxKeysPerObject: 1000,
  /** Keys and array items in the whole body. */
  maxEntries: 100_000,
} as const;

export type JsonLimits = Omit<typeof JSON_LIMITS, 'maxBytes'>;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * One linear pass over the text of a JSON document, outside its strings, counting nesting,
 * the keys of each object (its colons) and all entries (its colons and commas). Returns what
 * is wrong, or undefined. It does not check the syntax: JSON.parse does, after it, so a
 * document that is both malformed and too deep is refused either way. Doing this first keeps
 * a hostile body from reaching a parser or validator whose cost grows faster than its size.
 */
export function checkJsonShape(text: string, limits: JsonLimits = JSON_LIMITS): string | undefined {
  const keysPerLevel: number[] = [];
  let entries = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      index = endOfString(text, index);
    } else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
      keysPerLevel.push(0);
      if (keysPerLevel.length > limits.maxDepth) {
        return `The JSON body is nested deeper than ${limits.maxDepth} levels.`;
      }
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      keysPerLevel.pop();
    } else if (char === COLON || char === COMMA) {
      if (++entries > limits.maxEntries) {
        return `The JSON body has more than ${limits.maxEntries} keys and items.`;
      }
      if (char === COLON && keysPerLevel.length > 0) {
        const level = keysPerLevel.length - 1;
        if (++keysPerLevel[level] > limits.maxKeysPerObject) {
          return `An object in the JSON body has more than ${limits.maxKeysPerObject} keys.`;
        }
      }
    }
  }
  return undefined;
}

/** The index of the quote closing the string opened at `start` (or the end of the text). */
function endOfString(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === BACKSLASH) index++;
    else if (char === QUOTE) return index;
  }
  return text.length;
}
