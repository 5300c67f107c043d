import { defineEntity, p } from '@mikro-orm/core';
import { CONSOLE_ROLES } from './console.rules.js';

/** A person who signs in to the operator console, for one integrator (docs/console.md). */
export const ConsoleUser = defineEntity({
  name: 'ConsoleUser',
  tableName: 'console_user',
  indexes: [{ name: 'console_user_email_once', expression: 'create unique index console_user_email_once on console_user (lower(email))' }],
  uniques: [{ name: 'console_user_setup_token_once', properties: ['setupTokenHash'] }],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    email: p.string().length(254),
    role: p.enum([...CONSOLE_ROLES]).columnType('varchar(16)'),
    operator: p.boolean().default(false),
    passwordHash: p.string().length(255).nullable(),
    setupTokenHash: p.string().length(64).nullable(),
    setupExpiresAt: p.datetime().nullable(),
    failedLogins: p.integer().default(0),
    lockedUntil: p.datetime().nullable(),
    totpSecret: p.string().length(64).nullable(),
    totpPending: p.string().length(64).nullable(),
    disabled: p.boolean().default(false),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});

/** A signed-in console browser: the SHA-256 of its cookie, its CSRF token and when it was last used. */
export const ConsoleSession = defineEntity({
  name: 'ConsoleSession',
  tableName: 'console_session',
  indexes: [{ name: 'console_session_user_idx', properties: ['userId'] }],
  properties: {
    id: p.string().primary().length(64),
    userId: p.string().length(36),
    csrfToken: p.string().length(64),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    lastSeenAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
