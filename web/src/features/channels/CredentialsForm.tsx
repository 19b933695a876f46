import Form from '@rjsf/core';
import { errorId, type FieldErrorProps, type RJSFSchema } from '@rjsf/utils';
import validator from '@rjsf/validator-ajv8';
import { useMemo, useState, type ReactNode } from 'react';
import { ApiFailure } from '../../api/client.js';
import { Button, ErrorNotice, Notice } from '../../components/ui.js';
import { credentialsForm, fieldErrors } from './credentials.js';

type Data = Record<string, unknown>;

/** A field's errors under it, announced and tied to its input (aria-describedby names this id). */
function FieldError({ errors = [], fieldPathId }: FieldErrorProps) {
  const shown = errors.filter(Boolean);
  if (shown.length === 0) return null;
  return (
    <div id={errorId(fieldPathId)} className="error" role="alert">
      {shown.map((e, i) => (
        <p key={i}>{e}</p>
      ))}
    </div>
  );
}

/**
 * The form of a credential platform, generated from the JSON Schema the API answers. The API
 * checks the values (and the platform checks the account); its field errors are shown on the
 * fields. No validation runs in the browser: Ajv compiles with `eval`, which the app's CSP
 * forbids, and the API's messages are the ones that match its rules.
 */
export function CredentialsForm({
  credentials,
  submitLabel,
  onSubmit,
  secondary,
}: {
  credentials: Record<string, unknown>;
  submitLabel: string;
  onSubmit: (data: Data) => Promise<void>;
  secondary?: ReactNode;
}) {
  const { schema, uiSchema } = useMemo(() => credentialsForm(credentials), [credentials]);
  const [formData, setFormData] = useState<Data>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const placed = useMemo(() => (error instanceof ApiFailure ? fieldErrors(error.body.fields, schema) : null), [error, schema]);

  async function submit(data: Data) {
    setBusy(true);
    setError(null);
    try {
      await onSubmit(data);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="ch-rjsf">
      {error instanceof ApiFailure && placed ? (
        placed.unplaced.length > 0 || !error.body.fields?.length ? (
          <Notice kind="bad">{placed.unplaced.length > 0 ? placed.unplaced.join(' ') : error.body.message}</Notice>
        ) : null
      ) : (
        <ErrorNotice error={error} />
      )}
      <Form<Data, RJSFSchema>
        schema={schema}
        uiSchema={uiSchema}
        validator={validator}
        formData={formData}
        onChange={(e) => setFormData(e.formData ?? {})}
        onSubmit={(e) => void submit(e.formData ?? {})}
        noValidate
        noHtml5Validate
        showErrorList={false}
        extraErrors={placed?.errorSchema}
        templates={{ FieldErrorTemplate: FieldError }}
        disabled={busy}
        idPrefix="cred"
      >
        <div className="ch-dialog-actions">
          {secondary}
          <Button type="submit" disabled={busy}>
            {busy ? 'Checking…' : submitLabel}
          </Button>
        </div>
      </Form>
    </div>
  );
}
