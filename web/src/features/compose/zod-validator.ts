import { createErrorHandler, toErrorSchema, unwrapErrorHandler, validationDataMerge } from '@rjsf/utils';
import type { CustomValidator, ErrorTransformer, RJSFSchema, RJSFValidationError, UiSchema, ValidationData, ValidatorType } from '@rjsf/utils';
import { z } from 'zod';

/**
 * The settings forms' validator for @rjsf/core, on zod instead of Ajv. Ajv compiles each schema
 * into a function with `new Function`, which the app's Content-Security-Policy forbids (no
 * 'unsafe-eval'), so @rjsf/validator-ajv8 fails in the served app as soon as a schema with
 * `anyOf` is rendered or a form is validated. zod reads the same JSON Schema (`z.fromJSONSchema`,
 * draft 2020-12 as the server writes it with `z.toJSONSchema`) and validates without eval.
 */

// No eval anywhere in the app (the CSP would refuse it and report each try).
z.config({ jitless: true });

type Data = Record<string, unknown>;

const compiled = new WeakMap<object, z.ZodType | Error>();

function compile(schema: RJSFSchema, rootSchema?: RJSFSchema): z.ZodType {
  let out = compiled.get(schema);
  if (!out) {
    const withDefs: RJSFSchema =
      rootSchema && rootSchema !== schema && (rootSchema.$defs || rootSchema.definitions) ? { ...schema, $defs: rootSchema.$defs, definitions: rootSchema.definitions } : schema;
    try {
      out = z.fromJSONSchema(withDefs as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (e) {
      out = e instanceof Error ? e : new Error(String(e));
    }
    compiled.set(schema, out);
  }
  if (out instanceof Error) throw out;
  return out;
}

/** `.a[0].b` as rjsf names a data path. */
function property(path: PropertyKey[]): string {
  return path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('');
}

function toErrors(issues: z.core.$ZodIssue[]): RJSFValidationError[] {
  return issues.map((i) => {
    const prop = property(i.path);
    return { name: i.code, message: i.message, property: prop, params: {}, schemaPath: '', stack: `${prop || '.'} ${i.message}`.trim() };
  });
}

export const zodValidator: ValidatorType<Data, RJSFSchema> = {
  rawValidation<Result>(schema: RJSFSchema, formData?: Data) {
    try {
      const r = compile(schema).safeParse(formData ?? {});
      return { errors: (r.success ? [] : toErrors(r.error.issues)) as Result[] };
    } catch (e) {
      return { validationError: e instanceof Error ? e : new Error(String(e)) };
    }
  },

  validateFormData(formData: Data | undefined, schema: RJSFSchema, customValidate?: CustomValidator<Data, RJSFSchema>, transformErrors?: ErrorTransformer<Data, RJSFSchema>, uiSchema?: UiSchema<Data, RJSFSchema>): ValidationData<Data> {
    const raw = this.rawValidation<RJSFValidationError>(schema, formData);
    let errors: RJSFValidationError[] = raw.validationError ? [{ message: raw.validationError.message, stack: raw.validationError.message }] : (raw.errors ?? []);
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const result: ValidationData<Data> = { errors, errorSchema: toErrorSchema<Data>(errors) };
    if (!customValidate) return result;
    const handler = customValidate(formData, createErrorHandler<Data>(formData ?? {}), uiSchema, result.errorSchema);
    return validationDataMerge<Data>(result, unwrapErrorHandler<Data>(handler));
  },

  isValid(schema: RJSFSchema, formData: Data | undefined, rootSchema: RJSFSchema): boolean {
    try {
      return compile(schema, rootSchema).safeParse(formData).success;
    } catch {
      return false;
    }
  },
};
