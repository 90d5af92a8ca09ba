/**
 * The dashboard's words for what the server refused. The API names each offending field by
 * its path (`tags[3]`, `custom_fields.shoe_size`) and a code (`too_long`), with a message
 * written for developers ("name must be shorter than or equal to 255 characters"); people
 * at a form get a plain sentence instead, shown next to the field it belongs to. Every code
 * the server uses is turned into words here, in one place; a code this file does not know
 * yet falls back to the server's own message, tidied.
 */

/** One entry of the error envelope's `details`. */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
  /** Where a template field goes wrong (code `invalid_template`), from 1. */
  line?: number;
  column?: number;
}

/** What a sentence may draw on besides the detail itself. */
interface Context {
  detail: ErrorDetail;
  /** The last named segment of the path: `platform` of `social_media[0].platform`. */
  name: string;
  /** The limit the server's message states, of a length or a count. */
  limit?: number;
}

type Sentence = (context: Context) => string | undefined;

const EMAIL = 'Enter an email address, like name@example.com.';

/** What a well-formed value looks like, by field name. */
const FORMATS: Record<string, string> = {
  email: EMAIL,
  to: EMAIL,
  reply_to: EMAIL,
  emails: EMAIL,
  from: 'Enter a sender address, like news@example.com or Acme <news@example.com>.',
  birthdate: 'Enter a real date, like 1990-12-31.',
  send_at: 'Enter a date and time.',
  url: 'Enter a full web address, starting with https://.',
  subject: 'Keep the subject on one line.',
  template_id: 'Choose a template from the list.',
  segment_id: 'Choose an audience from the list.',
  subscriber_id: 'Choose a subscriber.',
  // Only a sender domain's name has a format to it.
  name: 'Enter a domain name, like acme.com: no https://, path or @.',
};

/** What to ask for when a field is left out, by field name. */
const REQUIRED: Record<string, string> = {
  email: 'Enter an email address.',
  password: 'Enter a password.',
  template_id: 'Choose a template.',
  name: 'Enter a name.',
  subject: 'Enter a subject.',
  from: 'Enter a sender address.',
  value: 'Enter a value.',
  emails: 'Enter at least one address.',
};

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

/** The unit a length limit counts, from the server's message. */
function lengthUnit({ detail, limit = 0 }: Context): string {
  if (/\b(?:items?|elements?)\b/.test(detail.message)) return plural(limit, 'item', 'items');
  if (/\bbytes?\b/.test(detail.message)) {
    return `${plural(limit, 'byte', 'bytes')} (accented letters and symbols take more than one)`;
  }
  if (/\bkeys?\b/.test(detail.message)) return plural(limit, 'field', 'fields');
  return plural(limit, 'character', 'characters');
}

/**
 * Code → the sentence for it, when the code (with the field's name and the limit) says
 * enough. Undefined: the server's message decides (see plainMessage).
 */
const SENTENCES: Record<string, Sentence> = {
  missing: ({ name }) => REQUIRED[name],
  required: ({ name }) => REQUIRED[name],
  invalid_format: ({ name }) => FORMATS[name],
  invalid_json: () => 'This is not valid JSON.',
  invalid_type: ({ detail }) =>
    /whole number|integer/.test(detail.message)
      ? 'Enter a whole number.'
      : /\bnumber\b/.test(detail.message)
        ? 'Enter a number.'
        : undefined,
  too_long: (context) =>
    context.limit === undefined
      ? undefined
      : // A rule on every item of a list ("each value in tags must be …").
        /^each value in /.test(context.detail.message)
        ? `Keep each one to at most ${lengthUnit(context)}.`
        : `Use at most ${lengthUnit(context)}.`,
  too_short: (context) =>
    context.limit === undefined || context.limit <= 1
      ? (REQUIRED[context.name] ?? 'This cannot be empty.')
      : `Use at least ${lengthUnit(context)}.`,
  too_many_keys: ({ limit }) => (limit === undefined ? undefined : `Use at most ${limit} fields.`),
  too_large: ({ detail }) => {
    const size = /\d+\s*[KM]i?B/.exec(detail.message)?.[0];
    return size ? `This is too large: at most ${size}.` : undefined;
  },
  out_of_range: ({ detail, name }) => {
    if (name === 'send_at' && /\bpast\b/.test(detail.message))
      return 'Choose a time in the future.';
    if (name === 'send_at' && /\byear\b/.test(detail.message)) {
      return 'Choose a time within a year from now.';
    }
    const between = /between (\S+) and (\S+)/.exec(detail.message);
    if (between) {
      const date = name === 'birthdate' || /\d{4}-\d{2}-\d{2}/.test(between[1]);
      return `Enter ${date ? 'a date' : 'a value'} between ${between[1]} and ${between[2]}.`;
    }
    const least = /less than (-?\d+)/.exec(detail.message);
    if (least) return `Enter ${least[1]} or more.`;
    const most = /greater than (-?\d+)/.exec(detail.message);
    return most ? `Enter ${most[1]} or less.` : undefined;
  },
  invalid_value: ({ detail }) => {
    const choices = /one of the following values: (.+)$/.exec(detail.message);
    return choices ? `Choose one of: ${choices[1]}.` : undefined;
  },
  invalid_characters: () =>
    'Remove the invisible control characters (such as NUL) or broken emoji from this text.',
  not_found: ({ name }) =>
    name === 'template_id'
      ? 'That template no longer exists. Choose another.'
      : name === 'segment_id'
        ? 'That segment no longer exists. Choose another audience.'
        : undefined,
  suppressed: () =>
    'This address is on the suppression list. Remove it under Suppressions to mail it again.',
  unverified_domain: ({ detail }) => {
    const domain = /^(\S+) is not a verified sender domain/.exec(detail.message)?.[1];
    return domain
      ? `The domain ${domain} is not one of your verified sender domains yet. Add it under Sender domains and verify it first.`
      : 'Send from an address on one of your verified sender domains.';
  },
  html_or_text_required: () => 'Write an HTML body, a plain-text body, or both.',
  erased: () => 'This address belongs to someone whose data was erased; it cannot be used again.',
};

/**
 * For the codes whose validator messages speak a developer's language ("should not be null
 * or undefined", "must be a UUID", "must be a string", "property x should not exist"), when
 * the catalogue has nothing better. Other codes keep the server's message, tidied ("send_at
 * is in the past" → "This is in the past.").
 */
const GENERIC: Record<string, string> = {
  missing: 'This field is required.',
  required: 'This field is required.',
  invalid_format: 'This is not in the expected format.',
  invalid_type: 'This is not the kind of value expected here.',
  unknown_field: 'This field is not accepted here.',
};

/**
 * The plain-language sentence for one detail, meant to stand next to its field (so it does
 * not name the field): the catalogue's sentence for its code; else the server's message
 * where it is a sentence of Herald's own (an author's, such as a template's line and
 * column); else the code's generic sentence.
 */
export function plainMessage(detail: ErrorDetail): string {
  const name = lastName(detail.field);
  const context: Context = { detail, name, limit: limitIn(detail.message) };
  const specific = SENTENCES[detail.code]?.(context);
  if (specific) return specific;
  const subject = leadingSubject(detail.message, detail.field, name);
  if (subject === undefined && /\.$/.test(detail.message.trim())) return sentence(detail.message);
  return GENERIC[detail.code] ?? tidy(detail.message, subject);
}

/** Field names as the dashboard labels them, for messages shown away from their field. */
const LABELS: Record<string, string> = {
  html: 'HTML body',
  text: 'Plain-text body',
  template_id: 'Template',
  segment_id: 'Audience',
  subscriber_id: 'Subscriber',
  account_name: 'Organisation',
  zip: 'Postcode',
  state: 'State or region',
  timezone: 'Time zone',
  send_at: 'Send time',
  rate_per_minute: 'Sending rate',
  address1: 'Address line 1',
  address2: 'Address line 2',
};

/** What one item of a list field is called: the `[1]` of `emails[1]` is "Address 2". */
const ITEM_NAMES: Record<string, string> = {
  tags: 'Tag',
  interests: 'Interest',
  emails: 'Address',
  scopes: 'Scope',
  subscribers: 'Subscriber',
};

/**
 * What a path names, in words: `first_name` → "First name", `tags[3]` → "Tag 4",
 * `custom_fields.shoe_size` → "Custom fields, “shoe_size”", `social_media[0].platform` →
 * "Social media, item 1, “platform”".
 */
export function fieldLabel(path: string): string {
  const all = segments(path);
  const [head] = all;
  if (head === undefined) return 'This form';
  if (typeof head === 'string' && ITEM_NAMES[head] && typeof all[1] === 'number') {
    return within(all, 1);
  }
  const first = typeof head === 'string' ? (LABELS[head] ?? words(head)) : '';
  return [first, within(all, typeof head === 'string' ? 1 : 0)].filter(Boolean).join(', ');
}

/**
 * Where under a form field a detail points, in words, or '' for the field itself: the
 * `[3]` of `tags[3]` is "Tag 4", the `.shoe_size` of `custom_fields.shoe_size` "“shoe_size”".
 */
export function placeWithin(path: string, field: string): string {
  const place = within(segments(path), segments(field).length);
  return place.charAt(0).toUpperCase() + place.slice(1);
}

/**
 * The segments of a path from `from` on, in words: an index is "item 4", or named after
 * its list ("Tag 4"); a key is quoted.
 */
function within(all: (string | number)[], from: number): string {
  return all
    .slice(from)
    .map((segment, index) => {
      if (typeof segment !== 'number') return `“${segment}”`;
      const list = all[from + index - 1];
      const name = typeof list === 'string' ? ITEM_NAMES[list] : undefined;
      return `${name ?? 'item'} ${segment + 1}`;
    })
    .join(', ');
}

/** Whether `path` is `field` or lies within it (`tags[2]` in `tags`; not `tagsx`). */
export function isWithin(path: string, field: string): boolean {
  return (
    path === field ||
    (path.startsWith(field) && (path[field.length] === '.' || path[field.length] === '['))
  );
}

/** `social_media[0].platform` → ['social_media', 0, 'platform']. */
function segments(path: string): (string | number)[] {
  const found: (string | number)[] = [];
  for (const part of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    found.push(part[2] !== undefined ? Number(part[2]) : part[1]);
  }
  return found;
}

function lastName(path: string): string {
  const named = segments(path).filter((segment): segment is string => typeof segment === 'string');
  return named[named.length - 1] ?? '';
}

/** The number a limit is stated with: "at most 100", "shorter than or equal to 255", … */
function limitIn(message: string): number | undefined {
  const found = /\b(?:most|least|to|than|over)\s+(\d[\d,]*)/.exec(message)?.[1];
  return found === undefined ? undefined : Number(found.replace(/,/g, ''));
}

/** snake_case → "Snake case". */
function words(name: string): string {
  const spaced = name.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/**
 * The raw field name a validator's message starts with ("first_name must be …"), if any:
 * such a message was written for developers, not by Herald for people.
 */
function leadingSubject(message: string, path: string, name: string): string | undefined {
  return [path, name].find((subject) => subject && message.startsWith(`${subject} `));
}

/** The server's message next to its field: "send_at must be …" → "This must be …". */
function tidy(message: string, subject: string | undefined): string {
  const text = message.trim();
  return sentence(subject ? `This ${text.slice(subject.length + 1)}` : text);
}

/** A capital first letter and a full stop at the end. */
function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
