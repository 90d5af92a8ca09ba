import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api } from '../api/client';
import { useLiveResult } from '../api/hooks';
import type { InvitationPreview, SessionView } from '../api/types';
import { useSession } from '../session';
import { TextField } from '../ui/Field';
import { formatDate } from '../ui/format';
import { ErrorNotice, InfoNotice, Loading } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { useFormSubmit } from '../ui/useFormSubmit';
import { AuthCard } from './AuthPages';

/**
 * The token of an invitation or reset link. It travels after `#`, which browsers never send
 * to a server, and is read once, so it is not kept in the address bar or history.
 */
function useLinkToken(): string {
  const location = useLocation();
  const navigate = useNavigate();
  const [token] = useState(() => location.hash.replace(/^#/, ''));
  useEffect(() => {
    if (location.hash) void navigate({ pathname: location.pathname }, { replace: true });
  }, [location.hash, location.pathname, navigate]);
  return token;
}

const PASSWORD_HINT = 'At least 12 characters.';

/** Opened from an invitation link: choose a name and password, and join the account. */
export function JoinPage() {
  const token = useLinkToken();
  const { adopt } = useSession();
  const navigate = useNavigate();
  const preview = useLiveResult<InvitationPreview>(
    '/invitations/inspect',
    token ? { token } : undefined,
  );
  const { failure, busy, submit } = useFormSubmit(async (form) => {
    const session = await api<SessionView>('/invitations/accept', {
      method: 'POST',
      body: { token, name: form.get('name') || undefined, password: form.get('password') },
    });
    adopt(session);
    void navigate('/campaigns', { replace: true });
  });

  if (!token || preview.error) {
    return (
      <AuthCard>
        <PageHeader title="Join an account" />
        <ErrorNotice>
          {preview.error?.message ??
            'This page opens from an invitation link. Ask the account owner for one.'}
        </ErrorNotice>
        <p className="auth-switch">
          Already have an account? <Link to="/signin">Sign in</Link>
        </p>
      </AuthCard>
    );
  }
  if (!preview.data) {
    return (
      <AuthCard>
        <Loading label="Opening your invitation…" />
      </AuthCard>
    );
  }
  const fieldError = (field: string) => failure?.fieldMessage(field);
  return (
    <AuthCard>
      <PageHeader
        title={`Join ${preview.data.account_name}`}
        description={`You were invited as ${preview.data.email}. The invitation is valid until ${formatDate(preview.data.expires_at)}.`}
      />
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField label="Your name" name="name" autoComplete="name" error={fieldError('name')} />
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="username"
          value={preview.data.email}
          readOnly
          error={fieldError('email')}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={12}
          hint={PASSWORD_HINT}
          error={fieldError('password')}
        />
        <FormFailure failure={failure} fields={['name', 'email', 'password']} />
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Joining…' : `Join ${preview.data.account_name}`}
        </button>
      </form>
    </AuthCard>
  );
}

/** Asks for a reset link; the answer is the same whether or not the email has an account. */
export function ForgotPasswordPage() {
  const [sent, setSent] = useState<string>();
  const { failure, busy, submit } = useFormSubmit(async (form) => {
    const answer = await api<{ message: string }>('/password-reset', {
      method: 'POST',
      body: { email: form.get('email') },
    });
    setSent(answer.message);
  });

  return (
    <AuthCard>
      <PageHeader
        title="Forgot your password?"
        description="Enter the email you sign in with, and we will send you a link to set a new password."
      />
      {sent ? (
        <InfoNotice>{sent}</InfoNotice>
      ) : (
        <form onSubmit={(event) => void submit(event)} noValidate>
          <TextField
            label="Email"
            name="email"
            type="email"
            autoComplete="username"
            required
            error={failure?.fieldMessage('email')}
          />
          <FormFailure failure={failure} fields={['email']} />
          <button type="submit" className="button button-primary button-block" disabled={busy}>
            {busy ? 'Sending…' : 'Send the link'}
          </button>
        </form>
      )}
      <p className="auth-switch">
        Remembered it? <Link to="/signin">Sign in</Link>
      </p>
    </AuthCard>
  );
}

/** Opened from a reset email: choose a new password; every other session is signed out. */
export function ResetPasswordPage() {
  const token = useLinkToken();
  const { adopt } = useSession();
  const navigate = useNavigate();
  const { failure, busy, submit } = useFormSubmit(async (form) => {
    const session = await api<SessionView>('/password-reset/complete', {
      method: 'POST',
      body: { token, password: form.get('password') },
    });
    adopt(session);
    void navigate('/campaigns', { replace: true });
  });

  return (
    <AuthCard>
      <PageHeader
        title="Set a new password"
        description="You will stay signed in here; every other browser signed in as you is signed out."
      />
      {!token ? (
        <ErrorNotice>This page opens from the link in a password reset email.</ErrorNotice>
      ) : (
        <form onSubmit={(event) => void submit(event)} noValidate>
          <TextField
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            hint={PASSWORD_HINT}
            error={failure?.fieldMessage('password')}
          />
          <FormFailure failure={failure} fields={['password']} />
          <button type="submit" className="button button-primary button-block" disabled={busy}>
            {busy ? 'Saving…' : 'Set new password'}
          </button>
        </form>
      )}
      <p className="auth-switch">
        Link expired? <Link to="/forgot-password">Ask for a new one</Link>
      </p>
    </AuthCard>
  );
}
