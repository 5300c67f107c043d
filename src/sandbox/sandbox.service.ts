/**
 * The staging test clock: an integrator moves its own "now" forward to see time-based rules
 * act (session nonce and refresh token expiry, Idempotency-Key expiry, webhook endpoint
 * disabling) without waiting. Other integrators' clocks are not affected.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { db } from '../db/sql.js';
import { advanceClock as advanceRow, readClock, resetAllClocks, resetClock as resetRow } from './sandbox.repository.js';
import { MAX_OFFSET_SECONDS } from './sandbox.rules.js';

export interface ClockView {
  now: string;
  offset_seconds: number;
}

async function view(em: EntityManager, integratorId: string): Promise<ClockView> {
  const clock = await readClock(db(em), integratorId);
  return { now: clock.now.toISOString(), offset_seconds: clock.offsetSeconds };
}

/** The integrator's clock. */
export function getClock(em: EntityManager, integratorId: string): Promise<ClockView> {
  return view(em, integratorId);
}

/** Moves the integrator's clock forward by `seconds`. */
export async function advanceClock(em: EntityManager, integratorId: string, seconds: number): Promise<ClockView> {
  if (!(await advanceRow(db(em), integratorId, seconds, MAX_OFFSET_SECONDS))) {
    throw AppError.invalid(
      { advance_seconds: ['CLOCK_TOO_FAR'] },
      `The test clock runs at most ${MAX_OFFSET_SECONDS} seconds ahead; reset it with DELETE /v2/sandbox/clock.`,
    );
  }
  return view(em, integratorId);
}

/** Puts the integrator's clock back to real time. */
export async function resetClock(em: EntityManager, integratorId: string): Promise<ClockView> {
  await resetRow(db(em), integratorId);
  return view(em, integratorId);
}

/**
 * A production process starts with every clock at real time: a database that staging used keeps
 * no offset for production's rules to read. Returns how many clocks were ahead.
 */
export function forgetAllClocks(em: EntityManager): Promise<number> {
  return resetAllClocks(db(em));
}
