/**
 * Registration and update in the older shape (`POST /register`, `PUT /user-info/{account_id}`):
 * platform ids as top-level keys and `country` for `country_iso`, made into the spec's shape
 * before the request validation judges the body (`accountBodyInSpecShape`). Mounted right
 * before the validation; every other request passes untouched. The aliases are described in
 * the OpenAPI documents too, so a body naming a field both ways passes the validation and is
 * refused by the route.
 */
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.js';
import { accountBodyInSpecShape } from './account.rules.js';

const REGISTER = /^\/register\/?$/i;
const UPDATE = /^\/user-info\/[^/]+\/?$/i;

export function accountAliases() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const applies = (req.method === 'POST' && REGISTER.test(req.path)) || (req.method === 'PUT' && UPDATE.test(req.path));
    const body = req.body as unknown;
    if (!applies || !body || typeof body !== 'object' || Array.isArray(body)) {
      next();
      return;
    }
    const shaped = accountBodyInSpecShape(body as Record<string, unknown>);
    // A field sent under both names stays as sent: authentication and validation come first,
    // then the route refuses it (`inSpecShape`).
    if (shaped.ok) req.body = shaped.body;
    next();
  };
}

/** The body in the spec's shape, or 400 naming each field sent under both of its names (`ALIAS_CONFLICT`). */
export function inSpecShape<T>(body: T): T {
  const shaped = accountBodyInSpecShape(body as Record<string, unknown>);
  if (!shaped.ok) throw AppError.invalid(shaped.fields, 'A field was sent under both of its names: send one of them.');
  return shaped.body as T;
}
