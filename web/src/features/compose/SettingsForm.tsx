import Form from '@rjsf/core';
import type { IconButtonProps, RJSFSchema, UiSchema } from '@rjsf/utils';
import { useMemo } from 'react';
import type { ErrorTree } from './model.js';
import { zodValidator } from './zod-validator.js';

type Data = Record<string, unknown>;

/** `post_type` → "Post type", `callToActionUrl` → "Call to action URL": the schemas name fields by their API keys. */
export function humanize(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/\b(url|id|ai)\b/g, (w) => w.toUpperCase());
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function uiFor(schema: RJSFSchema): UiSchema<Data, RJSFSchema> {
  const ui: UiSchema<Data, RJSFSchema> = { 'ui:submitButtonOptions': { norender: true } };
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (typeof prop === 'object' && !prop.title) ui[key] = { 'ui:title': humanize(key) };
  }
  return ui;
}

/** rjsf's default buttons are glyphicon-font icons (not shipped here): buttons with words instead. */
function textButton(label: string, variant: 'secondary' | 'ghost') {
  return function TextButton({ id, onClick, disabled, title }: IconButtonProps<Data, RJSFSchema>) {
    return (
      <button type="button" id={id} className={`btn btn-${variant} compose-small`} onClick={onClick} disabled={disabled} title={title} aria-label={title}>
        {label}
      </button>
    );
  };
}

const TEMPLATES = {
  ButtonTemplates: {
    AddButton: textButton('+ Add', 'secondary'),
    RemoveButton: textButton('Remove', 'ghost'),
    MoveUpButton: textButton('↑', 'ghost'),
    MoveDownButton: textButton('↓', 'ghost'),
    CopyButton: textButton('Copy', 'ghost'),
    ClearButton: textButton('Clear', 'ghost'),
  },
};

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
  const ui = useMemo(() => uiFor(clean), [clean]);
  return (
    <Form<Data, RJSFSchema>
      className="compose-settings-form"
      tagName="div"
      schema={clean}
      uiSchema={ui}
      templates={TEMPLATES}
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
