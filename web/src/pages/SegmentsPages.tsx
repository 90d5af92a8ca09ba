import { FormEvent, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiFailure, query } from '../api/client';
import { toFailure, useApi, useDebounced, useLiveResult } from '../api/hooks';
import type { Page, Segment, SegmentField } from '../api/types';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { TextAreaField, TextField } from '../ui/Field';
import { formatCount, formatDateTime } from '../ui/format';
import { EmptyState, ErrorNotice, InfoNotice, Loading } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { PagedTable } from '../ui/DataTable';
import { useCursorPager } from '../ui/Pager';
import {
  describeFilter,
  filterLabel,
  fromFilter,
  needsValue,
  newRule,
  OPERATOR_LABELS,
  Rule,
  Rules,
  takesDate,
  takesList,
  toFilter,
} from './segment-rules';

export function SegmentsPage() {
  const pager = useCursorPager('segments');
  const page = useApi<Page<Segment>>(`/segments${query({ cursor: pager.cursor })}`);
  return (
    <>
      <PageHeader
        title="Segments"
        description="Saved audiences: subscribers picked by rules over their fields."
        actions={
          <Link className="button button-primary" to="/segments/new">
            New segment
          </Link>
        }
      />
      <PagedTable
        list={page}
        pager={pager}
        empty={
          <EmptyState title="No segments yet">
            <p>Without a segment, a campaign goes to every subscriber.</p>
          </EmptyState>
        }
        caption="Segments"
        columns={['Name', 'Rule', 'Updated']}
      >
        {(segment) => (
          <tr key={segment.id}>
            <td>
              <Link className="strong" to={`/segments/${segment.id}`}>
                {segment.name}
              </Link>
            </td>
            <td>{describeFilter(segment.filter)}</td>
            <td>{formatDateTime(segment.updated_at)}</td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}

export function SegmentEditorPage() {
  const { id = 'new' } = useParams();
  const isNew = id === 'new';
  const loaded = useApi<Segment>(isNew ? null : `/segments/${encodeURIComponent(id)}`);
  const fields = useApi<{ data: SegmentField[] }>('/segments/fields');
  if (!isNew && loaded.error) return <ErrorNotice>{loaded.error.message}</ErrorNotice>;
  if ((!isNew && !loaded.data) || !fields.data) return <Loading />;
  return (
    <SegmentEditor key={id} segment={isNew ? undefined : loaded.data} fields={fields.data.data} />
  );
}

function SegmentEditor({ segment, fields }: { segment?: Segment; fields: SegmentField[] }) {
  const navigate = useNavigate();
  const [name, setName] = useState(segment?.name ?? '');
  const [rules, setRules] = useState<Rules | undefined>(() =>
    segment ? fromFilter(segment.filter) : { match: 'and', rules: [newRule()] },
  );
  const [json, setJson] = useState(JSON.stringify(segment?.filter ?? {}, null, 2));
  const [failure, setFailure] = useState<ApiFailure>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState(false);

  let filter: unknown;
  let jsonError: string | undefined;
  if (rules) {
    filter = toFilter(rules);
  } else {
    try {
      filter = JSON.parse(json);
    } catch {
      jsonError = 'This is not valid JSON.';
    }
  }
  const settled = useDebounced(jsonError ? undefined : { filter }, 300);
  const count = useLiveResult<{ count: number }>('/segments/count', settled);

  const update = (next: Rules) => {
    setRules(next);
    setSaved(false);
  };
  const editJson = () => {
    setJson(JSON.stringify(filter ?? {}, null, 2));
    setRules(undefined);
  };
  const useBuilder = () => {
    const parsed = fromFilter(filter);
    if (parsed) setRules(parsed);
    else setFailure(new ApiFailure(0, 'This filter has nested groups: keep editing it as JSON.'));
  };

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (jsonError) return;
    setBusy(true);
    setFailure(undefined);
    try {
      if (segment) {
        await api(`/segments/${segment.id}`, { method: 'PATCH', body: { name, filter } });
        setSaved(true);
      } else {
        const created = await api<Segment>('/segments', { method: 'POST', body: { name, filter } });
        void navigate(`/segments/${created.id}`, { replace: true });
      }
    } catch (error) {
      setFailure(toFailure(error));
    } finally {
      setBusy(false);
    }
  };

  const label = (path: string) => filterLabel(path, rules !== undefined);
  const countError = count.error?.explain({ label }).join(' ');
  return (
    <>
      <p className="breadcrumb">
        <Link to="/segments">Segments</Link>
      </p>
      <PageHeader
        title={segment ? segment.name : 'New segment'}
        description="Subscribers match when the rules below hold for them. The count updates as you edit."
        actions={
          segment && (
            <button
              type="button"
              className="button button-danger-ghost"
              onClick={() => setDeleting(true)}
            >
              Delete
            </button>
          )
        }
      />
      <form onSubmit={(event) => void save(event)} noValidate className="segment-form">
        <TextField
          label="Name"
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            setSaved(false);
          }}
          required
          error={failure?.fieldMessage('name')}
        />
        <section className="rules" aria-labelledby="rules-title">
          <div className="rules-head">
            <h2 id="rules-title">Rules</h2>
            <p className="live-count" aria-live="polite" data-testid="segment-count">
              {countError ? (
                <span className="field-error">{countError}</span>
              ) : count.data ? (
                <>
                  <strong>{formatCount(count.data.count)}</strong>{' '}
                  {count.data.count === 1 ? 'subscriber matches' : 'subscribers match'}
                </>
              ) : (
                'Counting…'
              )}
            </p>
          </div>
          {rules ? (
            <RuleBuilder rules={rules} fields={fields} onChange={update} />
          ) : (
            <TextAreaField
              label="Filter (JSON)"
              className="mono"
              rows={12}
              value={json}
              spellCheck={false}
              onChange={(event) => {
                setJson(event.target.value);
                setSaved(false);
              }}
              error={jsonError}
              hint='Groups nest: {"and": [...]}, {"or": [...]}; a condition is {"field", "op", "value"}.'
            />
          )}
          <p>
            {rules ? (
              <button type="button" className="link-button" onClick={editJson}>
                Edit as JSON
              </button>
            ) : (
              <button type="button" className="link-button" onClick={useBuilder}>
                Back to the rule builder
              </button>
            )}
          </p>
        </section>
        <FormFailure failure={failure} fields={['name']} label={label} />
        {saved && <InfoNotice>Saved.</InfoNotice>}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : segment ? 'Save segment' : 'Create segment'}
          </button>
        </div>
      </form>
      {segment && (
        <ConfirmDialog
          open={deleting}
          title={`Delete “${segment.name}”?`}
          confirmLabel="Delete segment"
          danger
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await api(`/segments/${segment.id}`, { method: 'DELETE' });
            void navigate('/segments');
          }}
        >
          <p>Subscribers are not affected. A draft campaign using this segment blocks deletion.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function RuleBuilder(props: {
  rules: Rules;
  fields: SegmentField[];
  onChange(rules: Rules): void;
}) {
  const { rules, onChange } = props;
  const set = (key: number, change: Partial<Rule>) =>
    onChange({
      ...rules,
      rules: rules.rules.map((rule) => (rule.key === key ? { ...rule, ...change } : rule)),
    });

  return (
    <div className="rule-builder">
      {rules.rules.length > 1 && (
        <div className="field field-inline">
          <label htmlFor="match">Match</label>
          <select
            id="match"
            value={rules.match}
            onChange={(event) =>
              onChange({ ...rules, match: event.target.value as Rules['match'] })
            }
          >
            <option value="and">all of the rules</option>
            <option value="or">any of the rules</option>
          </select>
        </div>
      )}
      {rules.rules.length === 0 && <p className="muted">No rules: every subscriber matches.</p>}
      <ol className="rule-list">
        {rules.rules.map((rule, index) => (
          <RuleRow
            key={rule.key}
            index={index}
            rule={rule}
            fields={props.fields}
            onChange={(change) => set(rule.key, change)}
            onRemove={() =>
              onChange({ ...rules, rules: rules.rules.filter((item) => item.key !== rule.key) })
            }
          />
        ))}
      </ol>
      <button
        type="button"
        className="button"
        onClick={() => onChange({ ...rules, rules: [...rules.rules, newRule()] })}
      >
        + Add rule
      </button>
    </div>
  );
}

const CUSTOM = 'custom_fields.';

function RuleRow(props: {
  index: number;
  rule: Rule;
  fields: SegmentField[];
  onChange(change: Partial<Rule>): void;
  onRemove(): void;
}) {
  const { rule, fields, onChange } = props;
  const id = useId();
  const isCustom = rule.field.startsWith(CUSTOM);
  const known = fields.find((field) => field.field === rule.field);
  const operators = known?.operators ?? ['eq', 'neq', 'in', 'not_in', 'exists', 'not_exists'];
  const label = `Rule ${props.index + 1}`;

  const chooseField = (field: string) => {
    const next = field === CUSTOM ? undefined : fields.find((item) => item.field === field);
    const ops = next?.operators ?? ['eq'];
    onChange({
      field: field === CUSTOM ? `${CUSTOM}` : field,
      op: ops.includes(rule.op) ? rule.op : ops[0],
      value: '',
    });
  };

  return (
    <li className="rule" aria-label={label}>
      <div className="field">
        <label htmlFor={`${id}-field`}>Field</label>
        <select
          id={`${id}-field`}
          value={isCustom ? CUSTOM : rule.field}
          onChange={(event) => chooseField(event.target.value)}
        >
          {fields.map((field) => (
            <option key={field.field} value={field.field}>
              {field.field}
            </option>
          ))}
          <option value={CUSTOM}>custom field…</option>
        </select>
      </div>
      {isCustom && (
        <div className="field">
          <label htmlFor={`${id}-custom`}>Custom field key</label>
          <input
            id={`${id}-custom`}
            value={rule.field.slice(CUSTOM.length)}
            onChange={(event) => onChange({ field: CUSTOM + event.target.value })}
          />
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-op`}>Condition</label>
        <select
          id={`${id}-op`}
          value={rule.op}
          onChange={(event) => onChange({ op: event.target.value })}
        >
          {operators.map((op) => (
            <option key={op} value={op}>
              {OPERATOR_LABELS[op] ?? op}
            </option>
          ))}
        </select>
      </div>
      {needsValue(rule.op) && (
        <div className="field rule-value">
          <label htmlFor={`${id}-value`}>
            {takesList(rule.op) ? 'Values (comma-separated)' : 'Value'}
          </label>
          <input
            id={`${id}-value`}
            type={takesDate(rule.op) ? 'date' : 'text'}
            value={rule.value}
            onChange={(event) => onChange({ value: event.target.value })}
          />
        </div>
      )}
      <button
        type="button"
        className="icon-button rule-remove"
        aria-label={`Remove ${label.toLowerCase()}`}
        onClick={props.onRemove}
      >
        ×
      </button>
    </li>
  );
}
