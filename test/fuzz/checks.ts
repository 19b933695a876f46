import type { Answer, SentRequest } from './client.js';
import { isDocumented, type Operation, type Validators } from './openapi.js';

/**
 * The properties every answer of the public API must have (API.md §3, HOUSE-STYLE "Edges"):
 * never a 5xx, every refusal in the one error shape with a `requestId` equal to `x-request-id`,
 * only statuses the OpenAPI document lists for the operation, and success bodies that match the
 * documented response schema.
 */

export interface CheckContext {
  op: Operation;
  validators: Validators;
  /**
   * The service tried the platform port this tier closed on purpose while handling the request.
   * A 502 PLATFORM_UNREACHABLE is then what a platform outage looks like, not a fault of the
   * service, and it is accepted as a 5xx (it must still be documented). Any other 5xx, or a 502
   * without that attempt (a bad instance URL nobody could reach), is a failure.
   */
  platformTried: boolean;
  /** ids of the OTHER organisation's objects that must never come back in a success body */
  foreignIds: readonly string[];
  request: SentRequest;
  /** what kind of case the request was (`body nul`, `params`…): 5xx of different kinds are told apart */
  caseKind: string;
  expectations: { overLimit?: boolean; removedRequired?: boolean; badAuth?: boolean };
}

const SMALL_BODY = 1024 * 1024;
const SLOW_MS = 10_000;

export interface Violation {
  /** stable across runs: groups the same failure found by different inputs */
  key: string;
  message: string;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The API.md §3 error body, checked field by field (the document's `Error` schema says the same). */
export function errorShapeProblems(status: number, headers: Record<string, string>, text: string): string[] {
  const body = parse(text);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [`the body is not a JSON object: ${text.slice(0, 200) || '(empty)'}`];
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  if (b.statusCode !== status) problems.push(`statusCode ${JSON.stringify(b.statusCode)} is not the status ${status}`);
  for (const k of ['error', 'code', 'message', 'requestId'] as const) if (typeof b[k] !== 'string' || b[k] === '') problems.push(`\`${k}\` is missing or not a string`);
  if (typeof b.code === 'string' && !/^[A-Z][A-Z0-9_]*$/.test(b.code)) problems.push(`code ${JSON.stringify(b.code)} is not SCREAMING_SNAKE`);
  if (b.fields !== undefined) {
    const ok = Array.isArray(b.fields) && b.fields.every((f) => f !== null && typeof f === 'object' && typeof (f as { path?: unknown }).path === 'string' && typeof (f as { message?: unknown }).message === 'string');
    if (!ok) problems.push('`fields` is not a list of {path, message}');
  }
  if (b.code === 'VALIDATION_FAILED' && (!Array.isArray(b.fields) || b.fields.length === 0)) problems.push('VALIDATION_FAILED without `fields` naming the offending field');
  const allowed = new Set(['statusCode', 'error', 'code', 'message', 'fields', 'requestId']);
  const extra = Object.keys(b).filter((k) => !allowed.has(k));
  if (extra.length > 0) problems.push(`unexpected keys ${extra.join(', ')}`);
  if (typeof b.requestId === 'string' && b.requestId !== headers['x-request-id']) {
    problems.push(`requestId ${JSON.stringify(b.requestId)} is not the x-request-id header ${JSON.stringify(headers['x-request-id'])}`);
  }
  if (/\bat .*\.(ts|js):\d+|node_modules|SELECT |INSERT /.test(text)) problems.push('the body leaks a stack trace or SQL');
  return problems;
}

export function checkAnswer(ctx: CheckContext, answer: Answer): Violation[] {
  const { op } = ctx;
  const { status } = answer;
  const out: Violation[] = [];
  const body = parse(answer.text);
  const code = body !== null && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;
  const codeText = typeof code === 'string' ? code : '-';

  if (status >= 500) {
    // Two 5xx are answers by design, not faults: 501 for a platform this version cannot use yet
    // (errors.ts PLATFORM_NOT_AVAILABLE), and 502 when the platform did not answer, which this tier
    // causes on purpose (see `platformTried`). Both must still be documented (checked below).
    const byDesign = (status === 501 && code === 'PLATFORM_NOT_AVAILABLE') || (status === 502 && code === 'PLATFORM_UNREACHABLE' && ctx.platformTried);
    if (!byDesign) out.push({ key: `${op.name} → ${status} ${codeText} [${ctx.caseKind}]`, message: `a ${status} (${codeText}): never a 5xx for a request` });
  }
  if (!isDocumented(op, status)) {
    out.push({ key: `${op.name} → undocumented ${status}`, message: `status ${status} is not in the OpenAPI document for ${op.name} (it lists ${[...op.statuses].join(', ')})` });
  }
  if (status < 200 || status >= 300) {
    const problems = errorShapeProblems(status, answer.headers, answer.text);
    if (problems.length > 0) out.push({ key: `${op.name} → ${status} not in the error shape`, message: `a ${status} not in the error shape: ${problems.join('; ')}` });
  } else {
    const schema = op.responseSchemas.get(String(status));
    // A status documenting several media types (a download as CSV or JSON) is checked as JSON
    // only when it answered JSON; another answer must be of a type it documents.
    const answeredType = String(answer.headers['content-type'] ?? '').split(';')[0]!.trim();
    const documentedTypes = op.responseTypes.get(String(status)) ?? [];
    const otherDocumentedType = answeredType !== 'application/json' && documentedTypes.includes(answeredType) && documentedTypes.length > 1;
    if (schema !== undefined && !otherDocumentedType) {
      const problem = body === undefined ? `not JSON: ${answer.text.slice(0, 200)}` : ctx.validators.check(`${op.name} ${status}`, schema, body);
      if (problem) out.push({ key: `${op.name} → ${status} body off-schema`, message: `the ${status} body does not match the documented schema: ${problem.slice(0, 1000)}` });
    }
    const requestText = `${ctx.request.url} ${ctx.request.body?.toString('utf8') ?? ''}`;
    const leaked = ctx.foreignIds.filter((id) => answer.text.includes(id) && !requestText.includes(id));
    if (leaked.length > 0) out.push({ key: `${op.name} → leaks another organisation's ids`, message: `the success body holds ids of another organisation's objects: ${leaked.join(', ')}` });
  }
  // The event loop is shared: a small request that takes this long holds up every other client.
  // (Bodies of several MiB take seconds to parse, validate and store; small ones take milliseconds,
  // a few seconds at worst for 100,000 levels of nesting.)
  if ((ctx.request.body?.length ?? 0) < SMALL_BODY && answer.ms > SLOW_MS) {
    out.push({ key: `${op.name} → slow answer [${ctx.caseKind}]`, message: `answered after ${(answer.ms / 1000).toFixed(1)} s (a body under 1 MiB should take well under ${SLOW_MS / 1000} s)` });
  }
  if (ctx.expectations.overLimit && status !== 413) {
    out.push({ key: `${op.name} → over-limit body answered ${status}`, message: `a body over the JSON body limit answered ${status}, not 413` });
  }
  if (ctx.expectations.removedRequired && status >= 200 && status < 300) {
    out.push({ key: `${op.name} → accepts a body without a required key`, message: `a body without a key the document marks required was accepted (${status})` });
  }
  if (ctx.expectations.badAuth && status >= 200 && status < 300) {
    out.push({ key: `${op.name} → accepts a bad credential`, message: `answered ${status} to a request without a valid credential` });
  }
  if (Object.keys(Object.prototype).length > 0 || ({} as Record<string, unknown>).polluted !== undefined) {
    out.push({ key: 'Object.prototype polluted', message: `Object.prototype now has keys: ${Object.keys(Object.prototype).join(', ')}` });
  }
  return out;
}

const redact = (headers: Record<string, string>, keys: Map<string, string>) => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k.toLowerCase() === 'authorization' ? (keys.get(v) ?? `${v.slice(0, 12)}…`) : v;
  return out;
};

/** A counterexample someone can replay by hand: method, URL, headers, body prefix, answer. */
export function describeExchange(req: SentRequest, answer: Answer | undefined, keyNames: Map<string, string>, note: string): string {
  const body = req.body;
  const bodyText =
    body === undefined ? '(none)' : body.length > 600 ? `${JSON.stringify(body.subarray(0, 600).toString('utf8'))}… (${body.length} bytes in all)` : JSON.stringify(body.toString('utf8'));
  const lines = [`${req.method} ${req.url.length > 400 ? `${req.url.slice(0, 400)}… (${req.url.length} characters)` : req.url}`, `  headers: ${JSON.stringify(redact(req.headers, keyNames))}`, `  body: ${bodyText}`, `  case: ${note}`];
  if (answer) {
    lines.push(`  → ${answer.status} in ${answer.ms.toFixed(0)} ms, x-request-id ${answer.headers['x-request-id'] ?? '(none)'}, connection ${answer.headers.connection ?? '(none)'}`);
    lines.push(`  ← ${answer.text.length > 800 ? `${answer.text.slice(0, 800)}…` : answer.text}`);
  }
  return lines.join('\n');
}
