import type { Router } from 'express';
import { AppError } from '../errors.js';
import { principalOf } from '../http/auth.js';
import { db } from '../db/sql.js';
import { success } from '../envelope.js';
import { findCommand } from './command.service.js';

/** `GET /v2/commands/{command_id}`: where a 202 points; the command's state and, once done, its result. */
export function commandRoutes(router: Router): void {
  router.get('/v2/commands/:command_id', async (req, res) => {
    const command = await findCommand(db(req.em), principalOf(req).integratorId, req.params.command_id);
    if (!command) throw AppError.notFound('COMMAND_GET_ERROR', 'Command not found.');
    res.json(success(command));
  });
}
