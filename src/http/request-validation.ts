/**
 * Request validation compiled from the OpenAPI documents (the only schema source): for each
 * operation, its security requirement (bearer token + scopes), path, query and header
 * parameters, and body (media type and schema) are checked before any route runs. Ajv
 * compiles every schema once at boot. The operation is found by one middleware that tries only
 * the templates of the request's method (path-to-regexp, as Express's router matches them):
 * an Express route per operation cost every request a walk over all of them.
 */
import type { NextFunction, Request, Response } from 'express';
import { match, type MatchFunction } from 'path-to-regexp';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { AppError, addFieldError, fieldErrors, type FieldErrors } from '../errors.js';
import { httpMethods, type OpenApiDocument, templateOrder } from './openapi.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, opts?: { mode: 'full' | 'fast' }) => Ajv2020;

/** Not-found codes for path parameters that cannot be ids (answered like unknown ids). */
const NOT_FOUND: Record<string, { code: string; message: string }> = {
  account_id: { code: 'ACCOUNT_GET_ERROR', message: 'Account not found.' },
  escrow_id: { code: 'ESCROW_GET_ERROR', message: 'Escrow not found.' },
  invoice_id: { code: 'INVOICE_GET_ERROR', message: 'Invoice not found.' },
  command_id: { code: 'COMMAND_GET_ERROR', message: 'Command not found.' },
  webhook_id: { code: 'WEBHOOK_GET_ERROR', message: 'Webhook endpoint not found.' },
  event_id: { code: 'EVENT_GET_ERROR', message: 'Event not found.' },
};

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

/**
 * Keywords whose failure is told better by the errors under them (a `discriminator`'s: by its
 * schema's own `type` enum, as the add-payment-method body declares it).
 */
const SILENT = new Set(['if', 'allOf', 'anyOf', 'oneOf', 'discriminator']);

/** `/email/address` → `email.address`; the property a `required`-like error is about is added. */
function errorField(e: ErrorObject, root: string): string {
  const params = e.params as { missingProperty?: string; additionalProperty?: string; unevaluatedProperty?: string };
  const extra = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty;
  const parts = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.length ? parts.join('.') : root;
}

/**
 * Fields named in one answer at most. A 1 MiB body of 300,000 wrong array items would
 * otherwise name each one: tens of megabytes of answer and seconds of work.
 */
export const MAX_NAMED_FIELDS = 100;

/** Ajv errors as `payload.errors` (field → codes), the first MAX_NAMED_FIELDS fields. */
export function toFieldErrors(errors: ErrorObject[], root = 'body', into: FieldErrors = fieldErrors()): FieldErrors {
  let named = Object.keys(into).length;
  for (const e of errors) {
    if (SILENT.has(e.keyword)) continue;
    const field = errorField(e, root);
    if (!Object.hasOwn(into, field)) {
      if (named >= MAX_NAMED_FIELDS) break;
      named += 1;
    }
    addFieldError(into, field, CODES[e.keyword] ?? 'INVALID_VALUE');
  }
  return into;
}

/**
 * The message of a 400 whose errors include values outside an `enum`: each such field with the
 * values it allows (`invoice_mechanism must be one of: widget, api.`), so a client sending a
 * value Holdfast does not offer learns which ones it does.
 */
const MAX_LISTED_VALUES = 20;

function invalidMessage(failed: Array<{ errors: ErrorObject[]; root: string }>): string | undefined {
  const named = new Map<string, string>();
  for (const { errors, root } of failed) {
    for (const e of errors) {
      if (e.keyword !== 'enum' || named.size >= 10) continue;
      const field = errorField(e, root);
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues ?? [];
      // A long list (country codes) is the reference's to show, not every answer's.
      const values = allowed.length <= MAX_LISTED_VALUES ? allowed.map((v) => String(v)).join(', ') : 'the values the API reference lists';
      if (!named.has(field)) named.set(field, `${field} must be one of: ${values}.`);
    }
  }
  return named.size ? `The request is invalid: ${[...named.values()].join(' ')}` : undefined;
}

/**
 * Authenticates a request: a client token with `scopes`, or (when `userScopes` is given: the
 * operation lists `user_auth`) a user password token with `userScopes`.
 */
export type SecurityCheck = (req: Request, scopes: string[] | undefined, userScopes: string[] | undefined) => Promise<void>;

interface CompiledOperation {
  /** Scopes of the svc_auth requirement; undefined when the operation needs no token. */
  scopes: string[] | undefined;
  /** Scopes of the user_auth requirement; undefined when the operation refuses user password tokens. */
  userScopes: string[] | undefined;
  pathParams: Array<{ name: string; validate: ValidateFunction }>;
  query: ValidateFunction;
  headers: Array<{ name: string; validate: ValidateFunction; required: boolean }>;
  body: { required: boolean; media: Array<{ type: string; validate: ValidateFunction }> } | undefined;
}

/**
 * A schema as Ajv takes it. Ajv finds which `oneOf` branch a discriminator value names from each
 * branch's own `type` enum, and refuses an explicit `mapping` (which OpenAPI tools, the SDK's
 * type generator among them, read): the copy leaves it out. Shared and circular parts stay so.
 */
function forAjv(schema: unknown, copies = new Map<object, unknown>()): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const done = copies.get(schema);
  if (done !== undefined) return done;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(schema) ? [] : {};
  copies.set(schema, copy);
  for (const [key, value] of Object.entries(schema)) {
    const mapped = key === 'discriminator' && typeof value === 'object' && value !== null && 'mapping' in value && 'propertyName' in value;
    (copy as Record<string, unknown>)[key] = mapped ? { propertyName: value.propertyName } : forAjv(value, copies);
  }
  return copy;
}

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML of the OpenAPI documents, read field by field as the OpenAPI 3.1 schema defines them
function compile(ajv: Ajv2020, queryAjv: Ajv2020, op: Record<string, any>): CompiledOperation {
  const params = (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema: object }>;
  const query = params.filter((p) => p.in === 'query');
  const security = op.security as Array<Record<string, string[]>> | undefined;
  const requirement = security?.find((s) => s.svc_auth);
  const content = op.requestBody?.content as Record<string, { schema: object }> | undefined;
  return {
    scopes: requirement?.svc_auth,
    userScopes: security?.find((s) => s.user_auth)?.user_auth,
    pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, validate: ajv.compile(p.schema) })),
    query: queryAjv.compile({
      type: 'object',
      // `x-unknown-query-parameters: ignore` (the token endpoint: RFC 6749 §3.2): only the described ones are checked.
      additionalProperties: op['x-unknown-query-parameters'] === 'ignore',
      required: query.filter((p) => p.required).map((p) => p.name),
      properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
    }),
    headers: params
      .filter((p) => p.in === 'header')
      .map((p) => ({ name: p.name, validate: ajv.compile(p.schema), required: p.required === true })),
    body: content && {
      required: op.requestBody.required === true,
      media: Object.entries(content).map(([type, media]) => ({ type, validate: ajv.compile(forAjv(media.schema ?? {}) as object) })),
    },
  };
}

/**
 * Whether the request carries a body. A JSON `null` body is no body: the reference service's SDK
 * sends it on operations that take none (or an optional one), so it must mean "absent".
 */
function hasBody(req: Request): boolean {
  if (req.body === null) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

const NULL_BODY_REQUIRED = 'The body is required: a JSON null body counts as no body.';

function check(op: CompiledOperation, params: Record<string, string>, req: Request): void {
  for (const p of op.pathParams) {
    const value = decodeParam(params[p.name]);
    if (value === undefined || !p.validate(value)) {
      const missing = NOT_FOUND[p.name];
      // An id that cannot be one is unknown (404); any other path value is bad input naming the parameter.
      if (missing) throw AppError.notFound(missing.code, missing.message);
      throw AppError.invalid(Object.assign(fieldErrors(), { [p.name]: ['INVALID_VALUE'] }));
    }
  }
  const fields = fieldErrors();
  const failed: Array<{ errors: ErrorObject[]; root: string }> = [];
  // On a copy: coercing `?limit=5` to a number is for the check only.
  if (!op.query({ ...req.query })) {
    toFieldErrors(op.query.errors ?? [], 'query', fields);
    failed.push({ errors: op.query.errors ?? [], root: 'query' });
  }
  for (const h of op.headers) {
    const value = req.headers[h.name.toLowerCase()];
    if (value === undefined) {
      if (h.required) addFieldError(fields, h.name, 'REQUIRED');
    } else if (!h.validate(value)) {
      addFieldError(
        fields,
        h.name,
        Array.isArray(value) ? 'INVALID_VALUE' : (CODES[h.validate.errors?.[0]?.keyword ?? ''] ?? 'INVALID_VALUE'),
      );
    }
  }
  const sent = hasBody(req);
  if (op.body) {
    const media = sent ? op.body.media.find((m) => req.is(m.type)) : undefined;
    if (sent && !media) {
      throw new AppError('unsupported_media_type', `The body must be sent as ${op.body.media.map((m) => m.type).join(' or ')}.`, {
        codes: ['UNSUPPORTED_MEDIA_TYPE'],
      });
    }
    if (!sent && op.body.required) addFieldError(fields, 'body', 'REQUIRED');
    if (media && !media.validate(req.body)) {
      toFieldErrors(media.validate.errors ?? [], 'body', fields);
      failed.push({ errors: media.validate.errors ?? [], root: 'body' });
    }
  } else if (sent && req.body && typeof req.body === 'object') {
    // An operation without a body takes none: `{}` is tolerated, any field is unknown.
    for (const key of Object.keys(req.body).slice(0, MAX_NAMED_FIELDS)) addFieldError(fields, key, 'UNKNOWN_FIELD');
  } else if (sent && req.body !== undefined) {
    // A JSON string, number or boolean where no body is taken: nothing to name but the body.
    addFieldError(fields, 'body', 'NOT_ALLOWED');
  }
  if (Object.keys(fields).length) {
    const nullBody = req.body === null && fields.body?.includes('REQUIRED');
    throw AppError.invalid(fields, invalidMessage(failed) ?? (nullBody ? NULL_BODY_REQUIRED : undefined));
  }
}

/** A path parameter percent-decoded, as Express's router decodes it; undefined when malformed. */
function decodeParam(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

interface Route {
  match: MatchFunction<Record<string, string>>;
  op: CompiledOperation;
}

/**
 * Middleware that, for every documented operation, authenticates the caller (when the
 * operation declares `svc_auth`) and validates the request; it then passes the request on to
 * the routes. A request no operation matches goes on unchecked (to a 404 or 405).
 */
export function requestValidation(doc: OpenApiDocument, authenticate: SecurityCheck) {
  // `discriminator`: a `oneOf` of bodies told apart by a field (`type`) is checked against the one it names only.
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, discriminator: true }), { mode: 'full' });
  // A query string carries only text: `limit=5` is the integer 5 (and `limit=5x` is not).
  const queryAjv = addFormats(new Ajv2020({ allErrors: true, strict: false, coerceTypes: true }), { mode: 'full' });
  const byMethod = new Map<string, Route[]>();
  // Literal paths first, so `/v1/user-info/search` is not taken for `/v1/user-info/{account_id}`;
  // then literal segments before parameters (`/v2/exports/payouts` is an export, not an account's payouts).
  const templates = Object.keys(doc.paths).sort(templateOrder);
  for (const template of templates) {
    const expressPath = template.replace(/\{([^}]+)\}/g, ':$1');
    for (const method of httpMethods) {
      const operation = doc.paths[template][method];
      if (!operation) continue;
      const routes = byMethod.get(method.toUpperCase()) ?? [];
      // Matched as Express's router matches (case-insensitive, a trailing slash allowed);
      // parameters are decoded by `check`, which answers a malformed one.
      routes.push({
        match: match(expressPath, { decode: false, end: true, trailing: true, sensitive: false }),
        op: compile(ajv, queryAjv, operation),
      });
      byMethod.set(method.toUpperCase(), routes);
    }
  }
  const find = (method: string, path: string): { op: CompiledOperation; params: Record<string, string> } | undefined => {
    // HEAD is answered by the GET route, as Express answers it.
    const routes = byMethod.get(method) ?? (method === 'HEAD' ? byMethod.get('GET') : undefined) ?? [];
    for (const route of routes) {
      const found = route.match(path);
      if (found) return { op: route.op, params: found.params };
    }
    return undefined;
  };
  return (req: Request, _res: Response, next: NextFunction): void => {
    const found = find(req.method, req.path);
    if (!found) {
      next();
      return;
    }
    const { op, params } = found;
    const run = async () => {
      if (op.scopes || op.userScopes) await authenticate(req, op.scopes, op.userScopes);
      check(op, params, req);
      // Checked as absent, and absent from here on: routes and the Idempotency-Key see no body.
      if (req.body === null) req.body = undefined;
    };
    run().then(() => next(), next);
  };
}
