import { replaceInvalidCharacters } from './text-integrity';

const PLAIN_KEY = /^[A-Za-z0-9_$-]{1,64}$/;
const SHOWN_KEY_LENGTH = 64;

/**
 * The path of a field inside a body as error details name it: `social_media[0].platform`,
 * `custom_fields.plan`. A key that is not a plain name is quoted (and shortened, and its
 * unprintable characters replaced), so a hostile key cannot make a path unreadable or huge.
 */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number' || /^\d+$/.test(key)) return `${parent}[${key}]`;
  const name = PLAIN_KEY.test(key) ? key : JSON.stringify(shown(key));
  if (!parent) return name;
  return PLAIN_KEY.test(key) ? `${parent}.${name}` : `${parent}[${name}]`;
}

/** True for a path that names a field of the body itself, not something inside one. */
export function isTopLevel(path: string): boolean {
  return !/[.[]/.test(path);
}

function shown(key: string): string {
  const clean = replaceInvalidCharacters(key);
  return clean.length > SHOWN_KEY_LENGTH ? `${clean.slice(0, SHOWN_KEY_LENGTH)}…` : clean;
}
