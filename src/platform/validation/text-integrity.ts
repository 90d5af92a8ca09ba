/**
 * NUL and unpaired UTF-16 surrogates: PostgreSQL refuses the first in text and JSON, and the
 * second cannot be encoded as UTF-8 at all (it would be stored as U+FFFD, or fail in JSONB).
 * A client that sends them made a mistake; Herald says so instead of failing or corrupting.
 */
const INVALID = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const INVALID_ALL = new RegExp(INVALID.source, 'g');

export function hasInvalidCharacters(text: string): boolean {
  return INVALID.test(text);
}

/** Whether any string in a parsed JSON value, keys included, holds invalid characters. */
export function containsInvalidText(value: unknown): boolean {
  if (typeof value === 'string') return hasInvalidCharacters(value);
  if (typeof value !== 'object' || value === null) return false;
  // What findInvalidText would find first, without its paths: this runs on every CSV row.
  const pending: object[] = [value];
  while (pending.length > 0) {
    const container = pending.pop()!;
    if (Array.isArray(container)) {
      for (const item of container as unknown[]) {
        if (typeof item === 'string') {
          if (INVALID.test(item)) return true;
        } else if (typeof item === 'object' && item !== null) {
          pending.push(item);
        }
      }
      continue;
    }
    const entries = container as Record<string, unknown>;
    for (const key in entries) {
      if (!Object.hasOwn(entries, key)) continue;
      if (INVALID.test(key)) return true;
      const item = entries[key];
      if (typeof item === 'string') {
        if (INVALID.test(item)) return true;
      } else if (typeof item === 'object' && item !== null) {
        pending.push(item);
      }
    }
  }
  return false;
}

/** For showing a client's string back in a message: the invalid characters become U+FFFD. */
export function replaceInvalidCharacters(text: string): string {
  return text.replace(INVALID_ALL, '\uFFFD');
}

export interface InvalidText {
  /** Path of the string, or of the entry whose key holds the invalid characters. */
  path: string;
  inKey: boolean;
}

/**
 * Every string in a parsed JSON value (object keys included) that holds invalid characters,
 * in document order, up to `limit` of them. Iterative: the value's depth is already bounded
 * by the body parser, but without recursion no depth can overflow the stack. A path is only
 * built for a container it enters or a string it reports, so a long list of clean strings
 * costs one test each.
 */
export function findInvalidText(
  value: unknown,
  pathOf: (parent: string, key: string | number) => string,
  limit: number,
  root = '',
): InvalidText[] {
  const found: InvalidText[] = [];
  const check = (child: unknown, path: () => string) => {
    if (typeof child === 'string') {
      if (hasInvalidCharacters(child)) found.push({ path: path(), inKey: false });
    } else if (typeof child === 'object' && child !== null) {
      frames.push(frameOf(child, path()));
    }
  };
  const frames: Frame[] = [];
  check(value, () => root);
  while (frames.length > 0 && found.length < limit) {
    const frame = frames[frames.length - 1];
    if (frame.next >= frame.length) {
      frames.pop();
      continue;
    }
    const index = frame.next++;
    if (frame.items) {
      check(frame.items[index], () => pathOf(frame.path, index));
      continue;
    }
    const key = frame.keys![index];
    if (hasInvalidCharacters(key)) found.push({ path: pathOf(frame.path, key), inKey: true });
    else check(frame.entries![key], () => pathOf(frame.path, key));
  }
  return found.slice(0, limit);
}

/** A container being walked: an array's items, or an object's keys and values. */
interface Frame {
  path: string;
  items?: unknown[];
  entries?: Record<string, unknown>;
  keys?: string[];
  length: number;
  next: number;
}

function frameOf(container: object, path: string): Frame {
  if (Array.isArray(container)) {
    const items = container as unknown[];
    return { path, items, length: items.length, next: 0 };
  }
  const entries = container as Record<string, unknown>;
  const keys = Object.keys(entries);
  return { path, entries, keys, length: keys.length, next: 0 };
}
