import { ReactNode, useLayoutEffect, useRef } from 'react';
import type { ApiFailure } from '../api/client';
import { ErrorNotice, Loading } from './Notice';
import { Pager } from './Pager';

/** What `useApi` returns for a list, as far as the tables need it. */
export interface ListResult<T> {
  data?: { data: T[]; next_cursor?: string | null };
  error?: ApiFailure;
  loading: boolean;
}

/**
 * A list answer's states: its error, a spinner on the first load, `empty` when it has no rows,
 * else `children` with the rows.
 */
export function ListStates<T>({
  list,
  empty,
  children,
}: {
  list: ListResult<T>;
  empty: ReactNode;
  children(rows: T[]): ReactNode;
}) {
  return (
    <>
      {list.error && <ErrorNotice>{list.error.message}</ErrorNotice>}
      {!list.data && list.loading && <Loading />}
      {list.data?.data.length === 0 && empty}
      {list.data && list.data.data.length > 0 && children(list.data.data)}
    </>
  );
}

/**
 * A table of rows, one `<th scope="col">` per column heading, the caption for screen readers.
 * On a phone each row becomes a card: its cells stacked, each led by its column's heading
 * (`data-label`, which the stylesheet shows), so nothing scrolls sideways. The headings are
 * copied onto the cells after each render, whatever the page's cells are made of; the roles
 * keep the table a table for screen readers that drop it once it is not laid out as one.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  children,
}: {
  caption: string;
  columns: ReactNode[];
  rows: T[];
  /** One `<tr>` (with its key) per row. */
  children(row: T): ReactNode;
}) {
  const table = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    if (table.current) labelCells(table.current);
  });
  return (
    <div className="table-wrap">
      <table className="table table-cards" role="table" ref={table}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr role="row">
            {columns.map((column, index) => (
              <th scope="col" role="columnheader" key={index}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{rows.map((row) => children(row))}</tbody>
      </table>
    </div>
  );
}

/** Each body cell gets its column's heading as `data-label`, and the row and cell roles. */
function labelCells(table: HTMLTableElement) {
  const headings = Array.from(table.tHead?.rows[0]?.cells ?? [], (cell) =>
    (cell.textContent ?? '').trim(),
  );
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      row.setAttribute('role', 'row');
      Array.from(row.cells).forEach((cell, index) => {
        cell.setAttribute('role', 'cell');
        cell.dataset.label = headings[index] ?? '';
      });
    }
  }
}

/** A cursor-paged list: its states, its table, and the pager under it. */
export function PagedTable<T>({
  list,
  pager,
  empty,
  caption,
  columns,
  children,
}: {
  list: ListResult<T>;
  pager: { page: number; next(cursor: string): void; previous(): void };
  empty: ReactNode;
  caption: string;
  columns: ReactNode[];
  children(row: T): ReactNode;
}) {
  return (
    <>
      <ListTable list={list} empty={empty} caption={caption} columns={columns}>
        {children}
      </ListTable>
      <Pager
        page={pager.page}
        nextCursor={list.data?.next_cursor}
        onNext={pager.next}
        onPrevious={pager.previous}
      />
    </>
  );
}

/** A list that is not paged: its states and its table. */
export function ListTable<T>({
  list,
  empty,
  caption,
  columns,
  children,
}: {
  list: ListResult<T>;
  empty: ReactNode;
  caption: string;
  columns: ReactNode[];
  children(row: T): ReactNode;
}) {
  return (
    <ListStates list={list} empty={empty}>
      {(rows) => (
        <DataTable caption={caption} columns={columns} rows={rows}>
          {children}
        </DataTable>
      )}
    </ListStates>
  );
}
