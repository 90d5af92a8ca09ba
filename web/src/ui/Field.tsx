import { InputHTMLAttributes, ReactNode, TextareaHTMLAttributes, useId } from 'react';

interface FieldShell {
  label: string;
  hint?: ReactNode;
  error?: string;
}

/** The attributes that tie a control to its label, hint and error. */
interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/**
 * A labelled control whose hint and error are tied to it for assistive technology; `control`
 * renders the input itself with the attributes it is given.
 */
function Field({
  label,
  hint,
  error,
  control,
}: FieldShell & { control(props: ControlProps): ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') || undefined,
      })}
      {hint && (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled input whose hint and error are tied to it for assistive technology. */
export function TextField({
  label,
  hint,
  error,
  ...input
}: FieldShell & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field
      label={label}
      hint={hint}
      error={error}
      control={(props) => <input {...props} {...input} />}
    />
  );
}

export function TextAreaField({
  label,
  hint,
  error,
  ...area
}: FieldShell & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Field
      label={label}
      hint={hint}
      error={error}
      control={(props) => <textarea {...props} {...area} />}
    />
  );
}
