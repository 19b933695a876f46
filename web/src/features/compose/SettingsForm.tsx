import Form from '@rjsf/core';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { useMemo } from 'react';
import type { ErrorTree } from './model.js';
import { zodValidator } from './zod-validator.js';

type Data = Record<string, unknown>;

const UI: UiSchema<Data, RJSFSchema> = { 'ui:submitButtonOptions': { norender: true } };

/**
 * A channel's settings form, generated from the platform's JSON Schema (GET /integration-settings),
 * with the API's refusals shown on their fields (`extraErrors`). Its own chunk: loaded only when a
 * selected channel has settings.
 */
export default function SettingsForm({ schema, formData, onChange, extraErrors, idPrefix }: { schema: Data; formData: Data; onChange: (data: Data) => void; extraErrors?: ErrorTree; idPrefix: string }) {
  // The `$schema` URI is for the document, not for rendering.
  const clean = useMemo(() => {
    const { $schema: _s, ...rest } = schema;
    return rest;
  }, [schema]);
  return (
    <Form<Data, RJSFSchema>
      className="compose-settings-form"
      tagName="div"
      schema={clean}
      uiSchema={UI}
      formData={formData}
      validator={zodValidator}
      onChange={(e) => onChange(e.formData ?? {})}
      {...(extraErrors ? { extraErrors: extraErrors } : {})}
      showErrorList={false}
      noHtml5Validate
      idPrefix={idPrefix}
    />
  );
}
