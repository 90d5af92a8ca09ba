import { useState } from 'react';

/**
 * Cursor paging (the API has no page numbers): a stack of the cursors that led to each page,
 * so Previous pops and Next pushes.
 */
export function useCursorPager(resetKey: string) {
  const [state, setState] = useState<{ key: string; stack: string[] }>({
    key: resetKey,
    stack: [],
  });
  // A new search starts again at the first page.
  const stack = state.key === resetKey ? state.stack : [];
  return {
    cursor: stack.at(-1),
    page: stack.length + 1,
    next: (cursor: string) => setState({ key: resetKey, stack: [...stack, cursor] }),
    previous: () => setState({ key: resetKey, stack: stack.slice(0, -1) }),
  };
}

export function Pager(props: {
  page: number;
  nextCursor: string | null | undefined;
  onNext(cursor: string): void;
  onPrevious(): void;
}) {
  const { nextCursor } = props;
  if (props.page === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="button"
        disabled={props.page === 1}
        onClick={props.onPrevious}
      >
        ← Previous
      </button>
      <span className="pager-page">Page {props.page}</span>
      <button
        type="button"
        className="button"
        disabled={!nextCursor}
        onClick={() => nextCursor && props.onNext(nextCursor)}
      >
        Next →
      </button>
    </nav>
  );
}
