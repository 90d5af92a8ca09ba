import isEmail from 'validator/lib/isEmail';
import { hasInvalidCharacters } from './text-integrity';

/** An address of 254 characters and a display name: longer is not a sender we can use. */
export const MAX_MAILBOX_LENGTH = 320;

/** Characters that end or structure a display name unless it is quoted (RFC 5322 specials). */
const UNQUOTED_NAME_SPECIALS = /[(),:;<>@[\\\]"]/;

/**
 * Reads `address`, `<address>` or `Display Name <address>` (the name bare or in double
 * quotes) on one line, and returns the address; undefined for anything else, including a
 * list of several addresses or a group. A hand-written scan with indexOf and friends, so its
 * cost is linear in the input (a backtracking regex here took seconds on 80 KB).
 */
export function parseMailbox(value: string): string | undefined {
  // isEmail throws on an unpaired surrogate.
  if (value.length > MAX_MAILBOX_LENGTH || /[\r\n]/.test(value) || hasInvalidCharacters(value)) {
    return undefined;
  }
  const text = value.trim();
  if (!text.endsWith('>')) return isEmail(text) ? text : undefined;
  const open = text.lastIndexOf('<');
  if (open < 0) return undefined;
  const address = text.slice(open + 1, -1);
  if (/[<>\s]/.test(address) || !isEmail(address)) return undefined;
  return isDisplayName(text.slice(0, open).trim()) ? address : undefined;
}

function isDisplayName(name: string): boolean {
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) {
    return !name.slice(1, -1).includes('"');
  }
  return !UNQUOTED_NAME_SPECIALS.test(name);
}
