/**
 * What a provider object must lose before Holdfast stores it (pure). Stripe hands back, with a
 * PaymentIntent, a SetupIntent or an Identity VerificationSession, a `client_secret` that lets
 * whoever holds it confirm the payment or complete the verification from a browser; and with a
 * session its `url`, a one-time link to the person's own check. Stripe's guidance is to pass
 * them to that one browser and never store or log them: a stored snapshot (`provider_object`)
 * or event (`provider_event`) keeps neither, at any depth. An object that needs one again (a
 * page for the buyer) asks the provider for it then.
 */

/** Fields removed wherever they appear. */
const SECRET_FIELDS: ReadonlySet<string> = new Set(['client_secret']);

/** Fields removed from an object of a kind (its `object` field), where they hand the object to whoever holds them. */
const SECRET_FIELDS_OF: Readonly<Record<string, readonly string[]>> = {
  'identity.verification_session': ['url'],
};

/** A copy of `value` without its secrets (see the file's header); JSON in, JSON out. */
export function withoutProviderSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withoutProviderSecrets(v)) as T;
  if (!value || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const also = typeof object.object === 'string' ? (SECRET_FIELDS_OF[object.object] ?? []) : [];
  return Object.fromEntries(
    Object.entries(object)
      .filter(([field]) => !SECRET_FIELDS.has(field) && !also.includes(field))
      .map(([field, v]) => [field, withoutProviderSecrets(v)]),
  ) as T;
}
