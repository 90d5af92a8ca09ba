import { useState } from 'react';

/**
 * Copies `text`; says so in a live region, so screen-reader users hear it worked.
 * `accessibleName` tells apart several Copy buttons on one page ("Copy DKIM value").
 */
export function CopyButton({
  text,
  label = 'Copy',
  accessibleName,
}: {
  text: string;
  label?: string;
  accessibleName?: string;
}) {
  const [copied, setCopied] = useState(false);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard API unavailable (e.g. a plain-http origin that is not localhost).
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };

  return (
    <>
      <button
        type="button"
        className="button"
        aria-label={accessibleName}
        onClick={() => void copy()}
      >
        {copied ? 'Copied' : label}
      </button>
      <span className="visually-hidden" role="status">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </>
  );
}
