import { FormEvent, useState } from 'react';
import type { ApiFailure } from '../api/client';
import { toFailure } from '../api/hooks';

/**
 * A form's submit handler with its busy flag and last failure: `action` gets the form's data;
 * while it runs the form is busy, and what it throws becomes `failure`. With `stayBusy` the form
 * stays busy after success (for actions that navigate away).
 */
export function useFormSubmit(
  action: (form: FormData) => Promise<void>,
  { stayBusy = false }: { stayBusy?: boolean } = {},
) {
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setFailure(undefined);
    try {
      await action(form);
      if (!stayBusy) setBusy(false);
    } catch (error) {
      setFailure(toFailure(error));
      setBusy(false);
    }
  };

  return { failure, busy, submit };
}
