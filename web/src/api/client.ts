import { ErrorDetail, fieldLabel, isWithin, placeWithin, plainMessage } from './messages';

/**
 * The dashboard's only way to the server: JSON over fetch to /dashboard/api, cookies sent
 * by the browser, and the session's CSRF token on every write.
 */
const BASE = '/dashboard/api';

let csrfToken = '';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export type { ErrorDetail };

/** A field shows at most this many of the problems found within it (a list's items). */
const SHOWN_PER_FIELD = 3;

/** A failed request, carrying the server's error envelope. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }

  /** The details at a form field or within it (`tags` takes `tags[3]`). */
  detailsOf(field: string): ErrorDetail[] {
    return this.details.filter((detail) => isWithin(detail.field, field));
  }

  /**
   * What to show next to one form field, in plain words (see messages.ts), if the server
   * found anything wrong at it or within it; a problem inside it says where ("Tag 4: …").
   */
  fieldMessage(field: string): string | undefined {
    const found = this.detailsOf(field);
    if (found.length === 0) return undefined;
    const shown = found.slice(0, SHOWN_PER_FIELD).map((detail) => {
      const place = placeWithin(detail.field, field);
      return place ? `${place}: ${plainMessage(detail)}` : plainMessage(detail);
    });
    const more = found.length - shown.length;
    return [...shown, ...(more > 0 ? [`(${more} more like this.)`] : [])].join(' ');
  }

  /**
   * Everything this failure says, in plain words, for a place away from the fields: one
   * sentence per detail, led by what it is about ("Tag 4: …"), or the message when
   * the server named no field. `except` leaves out the details a form shows at its fields;
   * `label` names a path (the form's own labels, say) where the catalogue's words do not fit.
   */
  explain({
    except = [],
    label = (path) => fieldLabel(path),
  }: { except?: string[]; label?: (path: string) => string } = {}): string[] {
    if (this.details.length === 0) return [this.message];
    return this.details
      .filter((detail) => !except.some((field) => isWithin(detail.field, field)))
      .map((detail) => `${label(detail.field)}: ${plainMessage(detail)}`);
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when any request finds the session gone, so the app can show the sign-in page. */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export async function api<T>(
  path: string,
  options: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(BASE + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
    signal: options.signal,
  });
  const payload: unknown = await response.json().catch(() => undefined);
  if (response.ok) return payload as T;

  const error = (payload as { error?: { message?: string; details?: ErrorDetail[] } } | undefined)
    ?.error;
  const failure = new ApiFailure(
    response.status,
    error?.message ?? `The server answered ${response.status}.`,
    error?.details ?? [],
  );
  if (response.status === 401 && !path.startsWith('/signin')) {
    signedOutListeners.forEach((listener) => listener());
  }
  throw failure;
}

/** POSTs a multipart form (a file upload) and reads the JSON answer like `api`. */
export async function upload<T>(path: string, form: FormData): Promise<T> {
  const response = await fetch(BASE + path, {
    method: 'POST',
    headers: { accept: 'application/json', 'x-csrf-token': csrfToken },
    body: form,
    credentials: 'same-origin',
  });
  const payload: unknown = await response.json().catch(() => undefined);
  if (response.ok) return payload as T;
  const error = (payload as { error?: { message?: string; details?: ErrorDetail[] } } | undefined)
    ?.error;
  if (response.status === 401) signedOutListeners.forEach((listener) => listener());
  const details = error?.details ?? [];
  // A refused file says why in its detail; that is the message to show.
  const message =
    details[0]?.message ?? error?.message ?? `The server answered ${response.status}.`;
  throw new ApiFailure(response.status, message, details);
}

export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
