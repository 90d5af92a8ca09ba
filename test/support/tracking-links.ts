import type { ReceivedMessage } from './smtp-sink';

/** The tracking and opt-out links of a campaign message, as paths on Herald's server. */
export interface MessageLinks {
  pixel: string;
  /** Click links in the order they appear, with the target each leads to. */
  clicks: { path: string; target: string }[];
  unsubscribe: string;
}

/** Reads the links Herald put into a message (HTML part), relative to PUBLIC_URL. */
export function linksOf(message: ReceivedMessage, publicUrl: string): MessageLinks {
  const base = publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const html = message.body.replace(/&amp;/g, '&');
  const pixel = new RegExp(`${base}(/t/open/[A-Za-z0-9_.-]+)`).exec(html)?.[1];
  const clicks = [...html.matchAll(new RegExp(`${base}(/t/click/[^"\\s<>]+)`, 'g'))].map((m) => {
    const path = m[1];
    return { path, target: new URL(path, 'http://x').searchParams.get('u') ?? '' };
  });
  const unsubscribe = new RegExp(`${base}(/unsubscribe/[A-Za-z0-9_.-]+)`).exec(html)?.[1];
  if (!pixel || !unsubscribe) throw new Error(`no tracking links in: ${html.slice(0, 500)}`);
  return { pixel, clicks, unsubscribe };
}

/** A desktop browser's user agent: a person's open or click. */
export const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
/** Apple Mail Privacy Protection's proxy fetches with this bare agent: a machine open. */
export const APPLE_PROXY = 'Mozilla/5.0';
/** A security gateway following every link: a machine click. */
export const SCANNER = 'Mozilla/5.0 (compatible; Barracuda Sentinel URL scanner)';
