import { ReactNode, useState } from 'react';
import { toFailure } from '../api/hooks';
import { Dialog } from './Dialog';
import { ErrorNotice } from './Notice';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** Say exactly what will happen, and whether it can be undone. */
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** Extra condition, e.g. a typed confirmation, before the button is enabled. */
  ready?: boolean;
  onConfirm(): Promise<void>;
  onClose(): void;
}

export function ConfirmDialog(props: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (failure) {
      setError(toFailure(failure).explain().join(' '));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={props.open}
      title={props.title}
      onClose={props.onClose}
      footer={
        <>
          <button type="button" className="button" onClick={props.onClose}>
            Cancel
          </button>
          <button
            type="button"
            className={props.danger ? 'button button-danger' : 'button button-primary'}
            disabled={busy || props.ready === false}
            onClick={() => void confirm()}
          >
            {busy ? 'Working…' : props.confirmLabel}
          </button>
        </>
      }
    >
      {props.children}
      {error && <ErrorNotice>{error}</ErrorNotice>}
    </Dialog>
  );
}
