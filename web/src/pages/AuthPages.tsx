import { ReactNode } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import type { SessionView } from '../api/types';
import { Brand } from '../layout/AppShell';
import { useSession } from '../session';
import { TextField } from '../ui/Field';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { useFormSubmit } from '../ui/useFormSubmit';

export function SignInPage() {
  const { adopt } = useSession();

  const { failure, busy, submit } = useFormSubmit(async (form) => {
    adopt(
      await api<SessionView>('/signin', {
        method: 'POST',
        body: { email: form.get('email'), password: form.get('password') },
      }),
    );
  });

  return (
    <AuthCard>
      <PageHeader title="Sign in" description="Welcome back to Herald." />
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="username"
          required
          error={failure?.fieldMessage('email')}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={failure?.fieldMessage('password')}
        />
        <FormFailure failure={failure} fields={['email', 'password']} />
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="auth-switch">
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      <p className="auth-switch">
        New to Herald? <Link to="/signup">Create an account</Link>
      </p>
    </AuthCard>
  );
}

export function SignUpPage() {
  const { adopt } = useSession();

  const { failure, busy, submit } = useFormSubmit(async (form) => {
    adopt(
      await api<SessionView>('/signup', {
        method: 'POST',
        body: {
          account_name: form.get('account_name'),
          name: form.get('name') || undefined,
          email: form.get('email'),
          password: form.get('password'),
        },
      }),
    );
  });

  const fieldError = (field: string) => failure?.fieldMessage(field);
  return (
    <AuthCard>
      <PageHeader
        title="Create your account"
        description="One account holds your subscribers, campaigns and API keys."
      />
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="Organisation"
          name="account_name"
          autoComplete="organization"
          required
          error={fieldError('account_name')}
        />
        <TextField label="Your name" name="name" autoComplete="name" error={fieldError('name')} />
        <TextField
          label="Work email"
          name="email"
          type="email"
          autoComplete="username"
          required
          error={fieldError('email')}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={12}
          hint="At least 12 characters."
          error={fieldError('password')}
        />
        <FormFailure failure={failure} fields={['account_name', 'name', 'email', 'password']} />
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p className="auth-switch">
        Already have an account? <Link to="/signin">Sign in</Link>
      </p>
    </AuthCard>
  );
}

export function AuthCard({ children }: { children: ReactNode }) {
  return (
    <main className="auth" id="main">
      <div className="auth-brand">
        <Brand />
      </div>
      <div className="auth-card">{children}</div>
    </main>
  );
}
