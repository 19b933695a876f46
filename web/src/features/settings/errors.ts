import { ApiFailure } from '../../api/client.js';

/** The API's message for one field of a form (ApiFailure.body.fields), if it named that field. */
export function fieldError(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiFailure)) return undefined;
  return error.body.fields?.find((f) => f.path === path || f.path.startsWith(`${path}.`) || f.path.startsWith(`${path}[`))?.message;
}

/** Whether every field the API named is one the form shows next to its input (then no general notice is needed). */
export function onlyFieldErrors(error: unknown, paths: readonly string[]): boolean {
  if (!(error instanceof ApiFailure) || !error.body.fields?.length) return false;
  return error.body.fields.every((f) => paths.some((p) => fieldError(new ApiFailure(error.status, { ...error.body, fields: [f] }), p) !== undefined));
}

/** A refusal because of the person's role (403 FORBIDDEN), as opposed to other failures. */
export function isForbidden(error: unknown): error is ApiFailure {
  return error instanceof ApiFailure && error.status === 403 && error.body.code === 'FORBIDDEN';
}
