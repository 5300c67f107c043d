/** An answer in Stripe's error shape: `{error:{type,code,decline_code,message,param,…}}` with Stripe's HTTP status. */
export class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly body: {
      type: 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';
      message: string;
      code?: string;
      decline_code?: string;
      param?: string;
      payment_intent?: unknown;
      payment_method?: unknown;
      charge?: string;
      doc_url?: string;
    },
    /** Whether Stripe stores this answer under the request's Idempotency-Key (it does once the operation ran). */
    readonly replayable = false,
  ) {
    super(body.message);
  }

  /** A request Stripe refuses before running it (400, not stored for idempotent replay). */
  static invalid(message: string, param?: string, code?: string): StripeError {
    return new StripeError(400, { type: 'invalid_request_error', message, param, code, doc_url: docUrl(code) });
  }

  /** A missing object (404 resource_missing). */
  static missing(kind: string, id: string, param = 'id'): StripeError {
    return new StripeError(404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: `No such ${kind}: '${id}'`,
      param,
      doc_url: docUrl('resource_missing'),
    });
  }

  /** An object in a state the operation does not accept (400, stored like any executed request). */
  static unexpectedState(code: string, message: string): StripeError {
    return new StripeError(400, { type: 'invalid_request_error', code, message, doc_url: docUrl(code) }, true);
  }
}

/** Stripe links each error code to its page. */
export function docUrl(code: string | undefined): string | undefined {
  return code ? `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}` : undefined;
}
