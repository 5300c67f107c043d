/**
 * Input no operation can use, refused right after the body parsers and before anything else
 * (authentication, validation, idempotency, routes) looks at the request:
 *
 * - objects and arrays nested deeper than MAX_JSON_DEPTH (`TOO_DEEP`): JSON.parse copes with
 *   any depth, but JSON.stringify, Ajv and every recursive walk after it do not;
 * - a NUL character or an unpaired UTF-16 surrogate in any string, object key, form field or query
 *   parameter (`INVALID_CHARACTER`): PostgreSQL stores neither in text or jsonb.
 *
 * Keys such as `__proto__` and `constructor` are ordinary keys here, as JSON.parse makes them
 * (own properties, never a prototype): the validation refuses them where a schema lists its
 * fields, and free-form metadata stores them as data.
 *
 * Fields are named as the request validation names them (`metadata.note`, `line_items.0.sku`;
 * `body` for the body itself, a query parameter by its name). The walk is iterative and stops
 * at the depth limit, so it cannot overflow the stack itself.
 */
import type { NextFunction, Request, Response } from 'express';
import { AppError, addFieldError, fieldErrors, type FieldErrors } from '../errors.js';
import { MAX_NAMED_FIELDS } from './request-validation.js';

/** Levels of objects and arrays a body may nest, counting the body itself (`{"a":{}}` is 2). */
export const MAX_JSON_DEPTH = 32;

// NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const BAD_CHARACTER = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const SUSPECT = /[\u0000\ud800-\udfff]/;

/** A string PostgreSQL cannot store (NUL) or that is not valid Unicode (an unpaired surrogate). */
export function hasBadCharacter(s: string): boolean {
  // The plain class is the fast test; only text with a NUL or a surrogate (an emoji) needs the pairs checked.
  return SUSPECT.test(s) && BAD_CHARACTER.test(s);
}

interface Frame {
  value: unknown;
  key: string | undefined;
  parent: Frame | undefined;
  depth: number;
}

/** A name that itself carries a bad character is echoed with U+FFFD in its place. */
function clean(name: string): string {
  return name.replace(new RegExp(BAD_CHARACTER, 'g'), '\ufffd');
}

/** `metadata.note`: the keys from the body down, as the request validation names fields. */
function nameOf(frame: Frame, key?: string): string {
  const parts: string[] = key === undefined ? [] : [key];
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) parts.push(f.key);
  return parts.length ? clean(parts.reverse().join('.')) : 'body';
}

/**
 * The hostile parts of a parsed JSON (or form) body, as field → codes; empty when there are
 * none. Walks with an explicit stack, never deeper than MAX_JSON_DEPTH.
 */
export function hostileFields(body: unknown, into: FieldErrors = fieldErrors(), root?: string): FieldErrors {
  const stack: Frame[] = [{ value: body, key: root, parent: undefined, depth: 1 }];
  let named = Object.keys(into).length;
  const add = (field: string, code: string) => {
    addFieldError(into, field, code);
    named = Object.keys(into).length;
  };
  while (stack.length && named < MAX_NAMED_FIELDS) {
    const frame = stack.pop()!;
    const { value } = frame;
    if (typeof value === 'string') {
      if (hasBadCharacter(value)) add(nameOf(frame), 'INVALID_CHARACTER');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (frame.depth > MAX_JSON_DEPTH) {
      add(nameOf(frame), 'TOO_DEEP');
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        const item = value[i];
        // Scalars other than strings need no frame: most of a large array is numbers.
        if (typeof item === 'string' || (item !== null && typeof item === 'object'))
          stack.push({ value: item, key: String(i), parent: frame, depth: frame.depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      if (hasBadCharacter(key)) add(nameOf(frame, key), 'INVALID_CHARACTER');
      else {
        const item = (value as Record<string, unknown>)[key];
        if (typeof item === 'string' || (item !== null && typeof item === 'object'))
          stack.push({ value: item, key, parent: frame, depth: frame.depth + 1 });
      }
    }
  }
  return into;
}

/** The parsed query string (flat: strings, or arrays of them for a repeated name). */
function queryFields(req: Request, into: FieldErrors): void {
  if (!req.url.includes('?')) return;
  const query = req.query as Record<string, unknown>;
  for (const name of Object.keys(query)) {
    const value = query[name];
    const values = Array.isArray(value) ? value : [value];
    if (hasBadCharacter(name) || values.some((v) => typeof v === 'string' && hasBadCharacter(v)))
      addFieldError(into, clean(name), 'INVALID_CHARACTER');
  }
}

/** Middleware: answers 400 naming every hostile field (see the file comment), before any work. */
export function hostileInput() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const fields = fieldErrors();
    queryFields(req, fields);
    if (req.body !== undefined) hostileFields(req.body, fields);
    const found = Object.values(fields).flat();
    if (!found.length) {
      next();
      return;
    }
    const message = found.includes('TOO_DEEP')
      ? `The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`
      : found.includes('INVALID_CHARACTER')
        ? 'Text may not contain NUL characters or unpaired UTF-16 surrogates.'
        : 'The request is invalid.';
    next(AppError.invalid(fields, message));
  };
}
