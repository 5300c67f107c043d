/** The audit context of an API request: its client as the actor, and the request's id. */
import type { Request } from 'express';
import { clientActor, type AuditContext } from '../audit/audit.rules.js';
import { principalOf } from './auth.js';

/** Who makes an operator action through the API: the client of the bearer token; `reason` when the request gives one. */
export function auditContextOf(req: Request, reason?: string | null): AuditContext {
  return { actor: clientActor(principalOf(req).clientId), reason: reason ?? null, requestId: req.id };
}
