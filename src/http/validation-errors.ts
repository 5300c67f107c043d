/**
 * Turns express-openapi-validator errors into `payload.errors` (field → codes, spec §7).
 * The documents express every rule; this only translates their keywords into our codes.
 */
import { addFieldError, fieldErrors, type FieldErrors } from '../errors.js';

export interface ValidatorErrorItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

const CODES: Record<string, string> = {
  required: 'REQUIRED',
  dependentRequired: 'REQUIRED',
  additionalProperties: 'UNKNOWN_FIELD',
  unevaluatedProperties: 'UNKNOWN_FIELD',
  maxLength: 'TOO_LONG',
  minLength: 'TOO_SHORT',
  maxItems: 'TOO_LONG',
  minItems: 'TOO_SHORT',
  minProperties: 'EMPTY',
  format: 'INVALID_FORMAT',
  type: 'INVALID_TYPE',
  'false schema': 'NOT_ALLOWED',
  maximum: 'TOO_LARGE',
  minimum: 'TOO_SMALL',
  exclusiveMinimum: 'TOO_SMALL',
  exclusiveMaximum: 'TOO_LARGE',
};

/** `/body/email/address` → `email.address`; `/query/username` → `username`; `/body` → `body`. */
export function fieldName(path: string | undefined): string {
  if (!path) return 'body';
  const parts = path.replace(/^\.?\//, '').split(/[/.]/).filter(Boolean);
  const [location, ...rest] = parts;
  if (!location) return 'body';
  if (rest.length === 0) return location;
  return rest.map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
}

function code(item: ValidatorErrorItem): string {
  const keyword = (item.errorCode ?? '').replace(/\.openapi\.validation$/, '');
  if (CODES[keyword]) return CODES[keyword];
  if (/unknown query parameter/i.test(item.message ?? '')) return 'UNKNOWN_FIELD';
  return 'INVALID_VALUE';
}

/** Field errors for a validator 400; `if` errors are dropped (their `then` error says it). */
export function toFieldErrors(items: ValidatorErrorItem[]): FieldErrors {
  const fields = fieldErrors();
  for (const item of items) {
    if (item.errorCode === 'if.openapi.validation') continue;
    addFieldError(fields, fieldName(item.path), code(item));
  }
  return fields;
}

/** True when every error is about a path parameter (a malformed id answers like an unknown one). */
export function pathParamNames(items: ValidatorErrorItem[]): string[] {
  return items.every((i) => (i.path ?? '').startsWith('/params/') || (i.path ?? '').startsWith('.params.'))
    ? items.map((i) => fieldName(i.path))
    : [];
}
