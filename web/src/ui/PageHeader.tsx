import { ReactNode, useEffect, useRef } from 'react';

/**
 * The page's h1. It takes focus when the page opens, so keyboard and screen-reader users
 * land at the top of the new page instead of on a link of the old one.
 */
export function PageHeader(props: { title: string; description?: ReactNode; actions?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Herald`;
    heading.current?.focus({ preventScroll: true });
  }, [props.title]);
  return (
    <div className="page-header">
      <div>
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.description && <p className="page-description">{props.description}</p>}
      </div>
      {props.actions && <div className="page-actions">{props.actions}</div>}
    </div>
  );
}
