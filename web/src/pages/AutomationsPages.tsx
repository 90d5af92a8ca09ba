import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiFailure, query } from '../api/client';
import { toFailure, useApi } from '../api/hooks';
import type { Page, Template } from '../api/types';
import { PagedTable } from '../ui/DataTable';
import { formatDate } from '../ui/format';
import { EmptyState, ErrorNotice, Loading, WarningNotice } from '../ui/Notice';
import { PageHeader } from '../ui/PageHeader';
import { useCursorPager } from '../ui/Pager';
import { StatusBadge } from './KeysPage';

/** A step as the builder edits it: the API's shape, every field optional while editing. */
export interface StepDraft {
  id: string;
  type: 'send' | 'wait' | 'condition' | 'exit';
  template_id?: string;
  subject?: string;
  from?: string;
  seconds?: number;
  if?: { opened?: string; clicked?: string; filter?: unknown };
  then?: string | null;
  else?: string | null;
  next?: string;
}

interface Automation {
  id: string;
  name: string;
  status: 'draft' | 'active' | 'paused';
  trigger: { type: string; segment_id?: string; name?: string; field?: string; at?: string };
  steps: StepDraft[];
  reentry: string;
  created_at: string;
  activated_at: string | null;
  paused_reason: 'complaint_rate' | 'bounce_rate' | null;
}

interface AutomationStats {
  entered: number;
  waiting: number;
  completed: number;
  exited: Record<string, number>;
  steps: { step_id: string; entered: number; sent: number; opens: number; clicks: number }[];
}

export interface AutomationRun {
  id: string;
  automation_id: string;
  status: string;
  current_step_id: string | null;
  exit_reason: string | null;
  started_at: string;
}

const TRIGGERS: [string, string][] = [
  ['subscriber_created', 'A subscriber is created'],
  ['segment_entered', 'A subscriber enters a segment'],
  ['event', 'An event is recorded'],
  ['date', 'A yearly date (birthday…)'],
  ['manual', 'Added by hand'],
];

const STEP_LABELS: Record<StepDraft['type'], string> = {
  send: 'Send an email',
  wait: 'Wait',
  condition: 'Condition',
  exit: 'Exit',
};

/** Automations: sequences of mail each subscriber who enters goes through. */
export function AutomationsPage() {
  const pager = useCursorPager('automations');
  const list = useApi<Page<Automation>>(`/automations${query({ cursor: pager.cursor })}`);
  return (
    <>
      <PageHeader
        title="Automations"
        description="Welcome series, drip courses, birthday mail: each subscriber who enters goes through the steps on their own."
        actions={
          <Link className="button button-primary" to="/automations/new">
            New automation
          </Link>
        }
      />
      <PagedTable
        list={list}
        pager={pager}
        empty={
          <EmptyState title="No automations yet">
            <p>Create one to greet new subscribers or follow up on what they do.</p>
          </EmptyState>
        }
        caption="Automations"
        columns={['Name', 'Trigger', 'Status', 'In progress', 'Completed', 'Created']}
      >
        {(automation) => (
          <tr key={automation.id}>
            <td>
              <Link to={`/automations/${automation.id}`}>{automation.name}</Link>
            </td>
            <td>{TRIGGERS.find(([type]) => type === automation.trigger.type)?.[1]}</td>
            <td>
              <StatusBadge status={automation.status} />
            </td>
            <RunCounts id={automation.id} />
            <td className="nowrap">{formatDate(automation.created_at)}</td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}

function RunCounts({ id }: { id: string }) {
  const stats = useApi<AutomationStats>(`/automations/${id}/stats`);
  return (
    <>
      <td>{stats.data?.waiting ?? '…'}</td>
      <td>{stats.data?.completed ?? '…'}</td>
    </>
  );
}

const newStepId = (steps: StepDraft[], type: string) => {
  for (let n = steps.length + 1; ; n++) {
    const id = `${type}-${n}`;
    if (!steps.some((step) => step.id === id)) return id;
  }
};

/**
 * The builder: the trigger on top, then the steps as a vertical list (add, move, remove), a
 * condition's two branches side by side, each problem the server finds shown on its step.
 */
export function AutomationBuilderPage() {
  const { id } = useParams();
  const isNew = id === undefined || id === 'new';
  const loaded = useApi<Automation>(isNew ? null : `/automations/${id}`);
  if (loaded.error) return <ErrorNotice>{loaded.error.message}</ErrorNotice>;
  if (!isNew && !loaded.data) return <Loading />;
  return <AutomationBuilder key={id ?? 'new'} id={isNew ? undefined : id} loaded={loaded} />;
}

function AutomationBuilder({
  id,
  loaded,
}: {
  id: string | undefined;
  loaded: { data?: Automation; reload(): void };
}) {
  const navigate = useNavigate();
  const isNew = id === undefined;
  const stats = useApi<AutomationStats>(isNew ? null : `/automations/${id}/stats`);
  const templates = useApi<Page<Template>>('/templates?limit=100');
  const [name, setName] = useState(loaded.data?.name ?? '');
  const [trigger, setTrigger] = useState<Automation['trigger']>(
    loaded.data?.trigger ?? { type: 'subscriber_created' },
  );
  const [steps, setSteps] = useState<StepDraft[]>(loaded.data?.steps ?? []);
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);

  // While it runs, watch it: the figures refresh every few seconds.
  const { reload } = stats;
  useEffect(() => {
    if (loaded.data?.status !== 'active') return;
    const timer = setInterval(reload, 3000);
    return () => clearInterval(timer);
  }, [loaded.data?.status, reload]);

  const status = loaded.data?.status ?? 'draft';
  const editable = status !== 'active';

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setFailure(undefined);
    setSaved(false);
    try {
      await work();
    } catch (error) {
      setFailure(toFailure(error));
    } finally {
      setBusy(false);
    }
  };
  const save = () =>
    act(async () => {
      const body = { name, trigger, steps };
      if (isNew) {
        const created = await api<Automation>('/automations', { method: 'POST', body });
        void navigate(`/automations/${created.id}`, { replace: true });
      } else {
        await api<Automation>(`/automations/${id}`, { method: 'PATCH', body });
        setSaved(true);
        loaded.reload();
      }
    });
  const transition = (to: 'activate' | 'pause') =>
    act(async () => {
      await api<Automation>(`/automations/${id}/${to}`, { method: 'POST' });
      loaded.reload();
      stats.reload();
    });
  const update = (index: number, change: Partial<StepDraft>) =>
    setSteps(steps.map((step, i) => (i === index ? { ...step, ...change } : step)));
  const add = (type: StepDraft['type']) => {
    const step: StepDraft = { id: newStepId(steps, type), type };
    if (type === 'wait') step.seconds = 86400;
    if (type === 'send') step.template_id = templates.data?.data[0]?.id ?? '';
    if (type === 'condition') {
      const firstSend = steps.find((s) => s.type === 'send');
      step.if = { opened: firstSend?.id ?? '' };
      step.then = null;
      step.else = null;
    }
    setSteps([...steps, step]);
  };
  const move = (index: number, by: -1 | 1) => {
    const next = [...steps];
    const [step] = next.splice(index, 1);
    next.splice(index + by, 0, step);
    setSteps(next);
  };
  const figures = (stepId: string) => stats.data?.steps.find((s) => s.step_id === stepId);

  return (
    <>
      <PageHeader
        title={isNew ? 'New automation' : name || 'Automation'}
        description={<StatusBadge status={status} />}
        actions={
          !isNew && (
            <>
              {status !== 'active' && (
                <button
                  type="button"
                  className="button button-primary"
                  disabled={busy}
                  onClick={() => void transition('activate')}
                >
                  Activate
                </button>
              )}
              {status === 'active' && (
                <button
                  type="button"
                  className="button"
                  disabled={busy}
                  onClick={() => void transition('pause')}
                >
                  Pause
                </button>
              )}
            </>
          )
        }
      />
      {status === 'paused' && loaded.data?.paused_reason && (
        <GuardPauseNotice reason={loaded.data.paused_reason} />
      )}
      {failure && !failure.details.length && <ErrorNotice>{failure.message}</ErrorNotice>}
      {failure?.fieldMessage('steps') &&
        !failure.details.some((d) => d.field.startsWith('steps[')) && (
          <ErrorNotice>{failure.fieldMessage('steps')}</ErrorNotice>
        )}
      {saved && <p role="status">Saved.</p>}
      {stats.data && (
        <p className="muted" aria-label="Runs">
          {stats.data.entered} entered · {stats.data.waiting} in progress · {stats.data.completed}{' '}
          completed · {Object.values(stats.data.exited).reduce((a, b) => a + b, 0)} exited
        </p>
      )}
      <fieldset disabled={!editable || busy} className="automation-builder">
        <legend className="visually-hidden">Automation</legend>
        <div className="field">
          <label htmlFor="automation-name">Name</label>
          <input id="automation-name" value={name} onChange={(e) => setName(e.target.value)} />
          {failure?.fieldMessage('name') && (
            <p className="field-error">{failure.fieldMessage('name')}</p>
          )}
        </div>
        <section className="automation-card" aria-label="When it starts">
          <h2>When</h2>
          <TriggerEditor trigger={trigger} onChange={setTrigger} />
          {failure?.fieldMessage('trigger') && (
            <p className="field-error">{failure.fieldMessage('trigger')}</p>
          )}
        </section>
        <ol className="automation-steps">
          {steps.map((step, index) => (
            <li
              key={index}
              className="automation-card"
              aria-label={`Step ${index + 1}: ${step.id}`}
            >
              <header className="automation-step-header">
                <strong>
                  {index + 1}. {STEP_LABELS[step.type]}
                </strong>
                <span className="muted small">{step.id}</span>
                <span className="automation-step-tools">
                  <button
                    type="button"
                    className="button button-small"
                    disabled={index === 0}
                    onClick={() => move(index, -1)}
                    aria-label={`Move ${step.id} up`}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="button button-small"
                    disabled={index === steps.length - 1}
                    onClick={() => move(index, 1)}
                    aria-label={`Move ${step.id} down`}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="button button-small button-danger-ghost"
                    onClick={() => setSteps(steps.filter((_, i) => i !== index))}
                    aria-label={`Remove ${step.id}`}
                  >
                    Remove
                  </button>
                </span>
              </header>
              <StepEditor
                step={step}
                steps={steps}
                templates={templates.data?.data ?? []}
                onChange={(change) => update(index, change)}
              />
              {failure?.fieldMessage(`steps[${index}]`) && (
                <p className="field-error" role="alert">
                  {failure.fieldMessage(`steps[${index}]`)}
                </p>
              )}
              {step.type === 'send' && figures(step.id) && (
                <p className="muted small" aria-label={`Figures of ${step.id}`}>
                  {figures(step.id)!.sent} sent · {figures(step.id)!.opens} opened ·{' '}
                  {figures(step.id)!.clicks} clicked
                </p>
              )}
            </li>
          ))}
        </ol>
        <p className="automation-add">
          Add a step:{' '}
          {(Object.keys(STEP_LABELS) as StepDraft['type'][]).map((type) => (
            <button
              key={type}
              type="button"
              className="button button-small"
              onClick={() => add(type)}
            >
              {STEP_LABELS[type]}
            </button>
          ))}
        </p>
        <button type="button" className="button button-primary" onClick={() => void save()}>
          {isNew ? 'Create automation' : 'Save changes'}
        </button>
      </fieldset>
      {!editable && <p className="muted">Pause the automation to change it.</p>}
    </>
  );
}

function TriggerEditor({
  trigger,
  onChange,
}: {
  trigger: Automation['trigger'];
  onChange(trigger: Automation['trigger']): void;
}) {
  const segments = useApi<Page<{ id: string; name: string }>>('/segments?limit=100');
  return (
    <>
      <div className="field">
        <label htmlFor="trigger-type">Trigger</label>
        <select
          id="trigger-type"
          value={trigger.type}
          onChange={(e) => onChange({ type: e.target.value })}
        >
          {TRIGGERS.map(([type, label]) => (
            <option key={type} value={type}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {trigger.type === 'segment_entered' && (
        <div className="field">
          <label htmlFor="trigger-segment">Segment</label>
          <select
            id="trigger-segment"
            value={trigger.segment_id ?? ''}
            onChange={(e) => onChange({ ...trigger, segment_id: e.target.value })}
          >
            <option value="">Choose a segment</option>
            {segments.data?.data.map((segment) => (
              <option key={segment.id} value={segment.id}>
                {segment.name}
              </option>
            ))}
          </select>
        </div>
      )}
      {trigger.type === 'event' && (
        <div className="field">
          <label htmlFor="trigger-event">Event name</label>
          <input
            id="trigger-event"
            value={trigger.name ?? ''}
            onChange={(e) => onChange({ ...trigger, name: e.target.value })}
          />
        </div>
      )}
      {trigger.type === 'date' && (
        <div className="field">
          <label htmlFor="trigger-at">Birthday, at (HH:MM in the subscriber’s time zone)</label>
          <input
            id="trigger-at"
            value={trigger.at ?? '09:00'}
            onChange={(e) => onChange({ ...trigger, field: 'birthdate', at: e.target.value })}
          />
        </div>
      )}
    </>
  );
}

function StepEditor({
  step,
  steps,
  templates,
  onChange,
}: {
  step: StepDraft;
  steps: StepDraft[];
  templates: Template[];
  onChange(change: Partial<StepDraft>): void;
}) {
  const others = steps.filter((s) => s.id !== step.id);
  const target = (
    value: string | null | undefined,
    label: string,
    set: (id: string | null) => void,
  ) => (
    <div className="field">
      <label htmlFor={`${step.id}-${label}`}>{label}</label>
      <select
        id={`${step.id}-${label}`}
        value={value ?? ''}
        onChange={(e) => set(e.target.value === '' ? null : e.target.value)}
      >
        <option value="">End the run</option>
        {others.map((s) => (
          <option key={s.id} value={s.id}>
            {s.id}
          </option>
        ))}
      </select>
    </div>
  );
  switch (step.type) {
    case 'send':
      return (
        <>
          <div className="field">
            <label htmlFor={`${step.id}-template`}>Template</label>
            <select
              id={`${step.id}-template`}
              value={step.template_id ?? ''}
              onChange={(e) => onChange({ template_id: e.target.value })}
            >
              <option value="">Choose a template</option>
              {templates.map((template) => (
                <option key={template.id} value={template.id}>
                  {template.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${step.id}-subject`}>Subject (the template’s unless set)</label>
            <input
              id={`${step.id}-subject`}
              value={step.subject ?? ''}
              onChange={(e) => onChange({ subject: e.target.value || undefined })}
            />
          </div>
        </>
      );
    case 'wait':
      return (
        <div className="field">
          <label htmlFor={`${step.id}-hours`}>Hours to wait</label>
          <input
            id={`${step.id}-hours`}
            type="number"
            min={0}
            step="any"
            value={(step.seconds ?? 0) / 3600}
            onChange={(e) => onChange({ seconds: Math.round(Number(e.target.value) * 3600) })}
          />
        </div>
      );
    case 'condition': {
      const kind = step.if?.clicked !== undefined ? 'clicked' : 'opened';
      const sendSteps = steps.filter((s) => s.type === 'send');
      return (
        <>
          <div className="field">
            <label htmlFor={`${step.id}-if`}>If the subscriber</label>
            <select
              id={`${step.id}-if`}
              value={`${kind}:${step.if?.[kind] ?? ''}`}
              onChange={(e) => {
                const [k, on] = e.target.value.split(':');
                onChange({ if: { [k]: on } });
              }}
            >
              {sendSteps.flatMap((s) => [
                <option key={`o${s.id}`} value={`opened:${s.id}`}>
                  opened {s.id}
                </option>,
                <option key={`c${s.id}`} value={`clicked:${s.id}`}>
                  clicked in {s.id}
                </option>,
              ])}
            </select>
          </div>
          <div className="automation-branches">
            <div className="automation-branch" aria-label="If yes">
              <strong>Yes</strong>
              {target(step.then, 'Then', (then) => onChange({ then }))}
            </div>
            <div className="automation-branch" aria-label="If no">
              <strong>No</strong>
              {target(step.else, 'Else', (otherwise) => onChange({ else: otherwise }))}
            </div>
          </div>
        </>
      );
    }
    case 'exit':
      return <p className="muted">The run ends here.</p>;
  }
}

/**
 * Why the automation paused by itself: one of its send steps, a campaign underneath, passed the
 * reputation guard's complaint or bounce limit. Activating it resumes the held mail.
 */
function GuardPauseNotice({ reason }: { reason: 'complaint_rate' | 'bounce_rate' }) {
  return (
    <WarningNotice>
      <p data-testid="automation-guard-pause">
        Herald paused this automation to protect your sender reputation:{' '}
        {reason === 'complaint_rate'
          ? 'too many people marked one of its emails as spam.'
          : 'one of its emails bounced at too many addresses.'}{' '}
        Runs wait where they are and nobody new enters. Check the list and the content, then
        activate it again to send what is held.
      </p>
    </WarningNotice>
  );
}
