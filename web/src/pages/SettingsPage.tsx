import { useState } from 'react';
import { api } from '../api/client';
import { useApi } from '../api/hooks';
import type { AccountSettings } from '../api/types';
import { TextAreaField } from '../ui/Field';
import { ErrorNotice, InfoNotice, Loading } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { useFormSubmit } from '../ui/useFormSubmit';

export const POSTAL_ADDRESS_HINT =
  'Anti-spam laws (CAN-SPAM, and many others) ask for a postal address in marketing mail. ' +
  'Herald prints it, with your account’s name and an unsubscribe link, in the footer of ' +
  'campaign messages whose content has no {{unsubscribe_url}} of its own.';

/** The account's settings: for now, the postal address of the campaign footer. */
export function SettingsPage() {
  const settings = useApi<AccountSettings>('/account/settings');
  const [saved, setSaved] = useState(false);
  const { failure, busy, submit } = useFormSubmit(async (form) => {
    setSaved(false);
    await api<AccountSettings>('/account/settings', {
      method: 'PATCH',
      body: { postal_address: form.get('postal_address') },
    });
    settings.reload();
    setSaved(true);
  });

  if (settings.error) return <ErrorNotice>{settings.error.message}</ErrorNotice>;
  if (!settings.data) return <Loading />;
  return (
    <>
      <PageHeader title="Settings" description={`Account “${settings.data.name}”`} />
      <form onSubmit={(event) => void submit(event)} noValidate className="narrow-form">
        <TextAreaField
          label="Postal address"
          name="postal_address"
          rows={3}
          maxLength={500}
          defaultValue={settings.data.postal_address ?? ''}
          hint={POSTAL_ADDRESS_HINT}
          error={failure?.fieldMessage('postal_address')}
        />
        <FormFailure failure={failure} fields={['postal_address']} />
        {saved && <InfoNotice>Saved.</InfoNotice>}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </>
  );
}
