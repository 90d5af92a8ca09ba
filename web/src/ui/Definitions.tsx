import { ReactNode } from 'react';

/** A `<dl>` of label/value pairs, each pair in its own `<div>` (for tiles or detail rows). */
export function Definitions({
  className,
  itemClassName,
  items,
}: {
  className: string;
  itemClassName: string;
  items: [string, ReactNode][];
}) {
  return (
    <dl className={className}>
      {items.map(([label, value]) => (
        <div key={label} className={itemClassName}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
