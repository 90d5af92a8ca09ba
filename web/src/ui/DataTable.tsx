import { ReactNode } from 'react';
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

/** A table of rows, one `<th scope="col">` per column heading, the caption for screen readers. */
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
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th scope="col" key={index}>
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
