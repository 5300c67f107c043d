// Generated from openapi/sandbox.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/v2/sandbox/clock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's test clock */
        get: operations["getSandboxClock"];
        put?: never;
        /**
         * Move the caller's test clock forward
         * @description Adds `advance_seconds` to the integrator's clock. The clock runs at most 10 years
         *     (315360000 s) ahead; past that the answer is `400` with `CLOCK_TOO_FAR` on
         *     `advance_seconds` and the clock is unchanged.
         */
        post: operations["advanceSandboxClock"];
        /** Put the caller's test clock back to real time */
        delete: operations["resetSandboxClock"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/sandbox/disputes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The sandbox processor disputes a card charge
         * @description The sandbox card processor's notice that the card `payment_method_id` that paid purchase
         *     invoice `invoice_id` (state `SUCCESS`) is disputed: `amount` (default: all the charge
         *     still has; a larger amount is capped at that, and kept as `reported_amount`) for
         *     `reason` (default `fraudulent`). The processor has taken the money: the dispute opens
         *     `NEEDS_RESPONSE` with its money withdrawn from the integrator's wallet (see the Disputes
         *     API), evidence due 7 days later on the test clock. A charge disputed already answers its
         *     dispute. An invoice of another integrator answers `404 INVOICE_NOT_FOUND`; one that is no
         *     paid purchase, or a method that is not a card it charged, `400` naming
         *     `payment_method_id` (`NOT_A_CARD_CHARGE`). A `dispute.open` command (`200` with the
         *     dispute, or `202` + `Location` with `Prefer: respond-async`). Emits `dispute-opened`.
         *     The card `4000000000000259` is disputed this way, whole, a day after each charge.
         */
        post: operations["openSandboxDispute"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/sandbox/disputes/{dispute_id}/close": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The sandbox processor decides a dispute
         * @description `won`: the dispute is `WON` and its amount goes back to the integrator's wallet; `lost`:
         *     `LOST`, the amount goes to dispute losses. A dispute decided already the same way answers
         *     as it is; the other way, or a dispute Stripe reported, `409 DISPUTE_STATE_ERROR`. A
         *     `dispute.close` command. Emits `dispute-closed`.
         */
        post: operations["closeSandboxDispute"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ClockEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: {
                /** @description The integrator's "now" (real time plus `offset_seconds`). */
                now: components["schemas"]["Timestamp"];
                /** @description How far the clock runs ahead of real time; 0 is real time. */
                offset_seconds: number;
            };
        };
        /**
         * @description The envelope of every response except those an operation calls bare: `status`, the
         *     human-readable `message` lines, the machine-readable `codes`, and the `payload`.
         */
        Envelope: {
            /** @enum {string} */
            status: "Success" | "Failure";
            message: string[];
            codes: string[];
            payload: unknown;
        };
        /**
         * Format: date-time
         * @description ISO 8601, UTC.
         */
        Timestamp: string;
        InputErrorEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Failure";
            codes?: unknown;
            payload: {
                /**
                 * @description Field name → error codes, at most 100 fields. Body fields are named as sent
                 *     (nested ones with dots: `email.address`); query parameters and headers by
                 *     their names; `path` when the path is not valid percent-encoding (an id in the
                 *     path that is not answers 404 like an unknown id).
                 *     Codes: `REQUIRED`, `UNKNOWN_FIELD`, `INVALID_VALUE`, `INVALID_TYPE`,
                 *     `TOO_LONG`, `TOO_SHORT`, `INVALID_FORMAT`, `NOT_ALLOWED`, `MALFORMED_JSON`,
                 *     `TOO_DEEP`, `INVALID_CHARACTER` (the limits under `BadRequest`).
                 */
                errors: {
                    [key: string]: string[];
                };
            };
        };
        FailureEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Failure";
        };
        IdempotencyKeyInUseEnvelope: components["schemas"]["FailureEnvelope"] & {
            codes?: unknown;
        };
        Id: string;
        /** @enum {string} */
        DisputeReason: "fraudulent" | "product_not_received" | "duplicate" | "subscription_canceled" | "unrecognized" | "general";
        /** @enum {string} */
        DisputeStatus: "NEEDS_RESPONSE" | "UNDER_REVIEW" | "WON" | "LOST";
        /** @description Text the processor also takes as text. */
        Evidence: {
            product_description?: string;
            uncategorized_text?: string;
            access_activity_log?: string;
            refund_policy_disclosure?: string;
            cancellation_rebuttal?: string;
            customer_email_address?: string;
            service_date?: string;
        };
        /**
         * @description One place the disputed purchase's value was found when the dispute opened — or, for value
         *     that was waiting in an escrow or a payout and came back (the escrow cancelled, the payout
         *     reversed), the wallet it landed in.
         */
        TracedValue: {
            /** @description The account whose wallet it reached. */
            account_id: string;
            /** @description The wallet (its ledger account id); '' for value waiting in an escrow paid by card. */
            wallet_id: string;
            currency: string;
            /** @description How much of the value was found there (minor units of `currency`). */
            amount: number;
            /** @description What is held of it now (cannot be spent, converted, paid out or merged away). */
            held: number;
            /** @description What a WON dispute released. */
            released: number;
            /** @description What a LOST dispute took back (tokens to token issuance, fiat to the integrator's wallet). */
            clawed_back: number;
            /**
             * @description How the value got there — the purchase itself, an escrow's commit, a conversion, a payout.
             * @enum {string}
             */
            via: "purchase" | "escrow" | "conversion" | "payout";
            /** @description The invoice, escrow, token exchange or payout it went through. */
            reference_id: string;
            /**
             * @description `in_wallet`: still in the wallet (held); `paid_out`: it left Holdfast (counted in
             *     `unrecovered` when the dispute is LOST); `escrowed`: waiting in an ESCROWED escrow
             *     (not committed while the dispute is open; a cancel gives it back held, `in_wallet`,
             *     and after LOST clawed back); `payout_waiting`: in a payout not yet sent (not sent
             *     while the dispute is open; taken back, it is held in the wallet; LOST reverses the
             *     payout and claws it back). An `escrowed` entry is counted in `unrecovered` of a LOST
             *     dispute until its escrow is cancelled.
             * @enum {string}
             */
            state: "in_wallet" | "paid_out" | "escrowed" | "payout_waiting";
        };
        /**
         * @description `CAPPED`: the processor reported more than the charge still had in Holdfast (part or all of
         *     it refunded, an escrow cancel gave it back, or nothing paid): `amount` is what it had,
         *     `reported_amount` what was reported. `NOT_A_PAID_CHARGE`: Holdfast holds no paid card
         *     charge of a purchase behind the notice (its invoice is not `SUCCESS`): nothing is disputed
         *     (`amount` 0). Either way the dispute follows the processor's notices as any other.
         *     `SECOND_PROVIDER_DISPUTE`: Stripe reported another dispute of the same charge; Holdfast
         *     keeps one dispute per charge, so the other moves nothing here (`holdfast ledger verify`
         *     names it until an operator settles it with Stripe).
         * @enum {string}
         */
        DisputeFlag: "CAPPED" | "NOT_A_PAID_CHARGE" | "SECOND_PROVIDER_DISPUTE";
        Dispute: {
            /** @description `dsp_…` */
            dispute_id: string;
            /** @description The purchase invoice whose card charge is disputed. */
            invoice_id: string;
            /** @description The card. */
            payment_method_id: string;
            /** @description The buyer. */
            account_id: string;
            /** @description What is disputed (minor units), within what the charge still had. */
            amount: number;
            /**
             * @description What the processor reported, kept as it came. Above `amount` when the charge no longer
             *     had it all in Holdfast (refunded, given back by an escrow cancel, or never paid): the
             *     dispute is then flagged `CAPPED`.
             */
            reported_amount: number;
            currency: string;
            reason: components["schemas"]["DisputeReason"];
            status: components["schemas"]["DisputeStatus"];
            /** Format: date-time */
            evidence_due_by: string;
            evidence: components["schemas"]["Evidence"];
            /** Format: date-time */
            evidence_submitted: string | null;
            /** @description The integrator's dispute fee (minor units of `currency`). */
            fee: number;
            /**
             * @description Where the disputed money is: `none` (not taken: an inquiry, or a Stripe dispute before
             *     its funds are withdrawn), `withdrawn` (in dispute holding), `reinstated` (back in the
             *     integrator's wallet), `lost` (in dispute losses). It only moves forward; with Stripe,
             *     `reinstated` may come before the decision (`funds_reinstated`), and a `LOST` or `WON`
             *     dispute may still go from `none` when Stripe's withdrawal is reported after its
             *     decision.
             * @enum {string}
             */
            funds: "none" | "withdrawn" | "reinstated" | "lost";
            /** @description Where the disputed purchase's value went, and what was held, released or clawed back of it. */
            traced: components["schemas"]["TracedValue"][];
            /** @description Per currency, what had already left Holdfast (paid out) and could not be clawed back. */
            unrecovered: {
                [key: string]: number;
            };
            /** @enum {string} */
            provider: "sandbox" | "stripe";
            /** @description The processor's id of the dispute (Stripe `dp_…`). */
            provider_dispute_id: string | null;
            /**
             * @description A Stripe inquiry (a `warning_*` status): the processor has taken no money and takes none
             *     unless the cardholder's bank escalates it to a chargeback — on the same dispute, which then
             *     becomes `inquiry: false`, `NEEDS_RESPONSE` again (evidence submitted for the inquiry is
             *     kept, not submitted: submit it again for the chargeback), and moves money when Stripe
             *     withdraws it. An inquiry Stripe closes (`warning_closed`) ends `WON` with `funds: none`.
             *     Always false in the sandbox.
             */
            inquiry: boolean;
            /**
             * @description What an operator should look at; empty for most disputes. A processor's notice is
             *     recorded as it arrives, never refused: when Holdfast could not take all of it, it is kept
             *     with these flags and no more than `amount` (and the dispute fee) moves.
             */
            flags: components["schemas"]["DisputeFlag"][];
            /** Format: date-time */
            created: string;
            /** Format: date-time */
            updated: string;
            /** Format: date-time */
            closed: string | null;
        };
        DisputeEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["Dispute"];
        };
    };
    responses: {
        /** @description Accepted (`Prefer: respond-async`, or it ran past the wait): the dispute as it stands (`payload` null until an opening has run); `Location` is the dispute, `X-Command-Id` the command. */
        DisputeAccepted: {
            headers: {
                Location?: string;
                "X-Command-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Envelope"];
            };
        };
        /**
         * @description Invalid input. `payload.errors` names every offending field (the first 100).
         *
         *     Limits on every request, checked before anything else (authentication included): a
         *     JSON body nests objects and arrays at most 32 levels deep, counting the body itself
         *     (`TOO_DEEP`, naming the first value past the limit); no string, object key, form field
         *     or query parameter may hold a NUL character (`\u0000`) or an unpaired UTF-16 surrogate
         *     (`INVALID_CHARACTER`; characters outside the Basic Multilingual Plane, such as emoji,
         *     are fine). A body is at most 1 MiB (`413`).
         *
         *     A JSON `null` body is no body: accepted wherever the body is optional or the operation
         *     takes none, and `body: REQUIRED` where one is required. Any other JSON value that is not
         *     what the operation takes names the body too (`INVALID_TYPE`; `NOT_ALLOWED` where the
         *     operation takes no body); `MALFORMED_JSON` is a body that is not JSON at all.
         */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InputErrorEnvelope"];
            };
        };
        /**
         * @description Missing, malformed, expired or wrongly signed token, or a token without the scope this
         *     operation needs. `WWW-Authenticate` says which (RFC 6750).
         */
        Unauthorized: {
            headers: {
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"] & {
                    codes?: unknown;
                    payload?: null;
                };
            };
        };
        /**
         * @description Service unavailable or server error. The envelope carries the request id
         *     (`payload.request_id`, also in the `X-Request-Id` header) and nothing internal.
         */
        ServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"] & {
                    payload?: {
                        request_id: string;
                    };
                };
            };
        };
        /** @description A request with the same `Idempotency-Key` is still running; retry later (`Retry-After`). */
        IdempotencyKeyInUse: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["IdempotencyKeyInUseEnvelope"];
            };
        };
        /** @description The `Idempotency-Key` was used before with a different request. */
        IdempotencyKeyReused: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"] & {
                    codes?: unknown;
                };
            };
        };
        /** @description No such dispute for the caller's integrator (`DISPUTE_NOT_FOUND`). */
        DisputeNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"] & {
                    codes?: unknown;
                };
            };
        };
        /** @description The dispute's state does not allow this (`DISPUTE_STATE_ERROR`); the payload is the dispute. */
        DisputeConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"] & {
                    codes?: unknown;
                    payload?: components["schemas"]["Dispute"];
                };
            };
        };
    };
    parameters: {
        /**
         * @description Makes a retry safe. The same key with the same request returns the first response again
         *     (with `Idempotent-Replayed: true`); the same key with a different request gets `422
         *     IDEMPOTENCY_KEY_REUSED`; the same key while the first request still runs gets `409
         *     IDEMPOTENCY_KEY_IN_USE`. Keys are scoped to the calling client (to its account, for a user
         *     password token) and kept for 24 hours. A JSON `null` body and no body are the same
         *     request (`null` is no body); `{}` is a body of its own.
         *     A request that failed with a 5xx is not remembered, so it can be retried with the same key.
         *     An answer that carries a secret (a user password token, a session nonce) is never stored:
         *     its replay answers the same resources with a fresh token or nonce.
         */
        IdempotencyKey: string;
        DisputeIdPath: components["schemas"]["Id"];
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getSandboxClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The integrator's "now" and how far it runs ahead of real time. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "Success",
                     *       "message": [],
                     *       "codes": [],
                     *       "payload": {
                     *         "now": "2026-11-27T21:40:00.000Z",
                     *         "offset_seconds": 0
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ClockEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            500: components["responses"]["ServerError"];
        };
    };
    advanceSandboxClock: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request returns the first response again
                 *     (with `Idempotent-Replayed: true`); the same key with a different request gets `422
                 *     IDEMPOTENCY_KEY_REUSED`; the same key while the first request still runs gets `409
                 *     IDEMPOTENCY_KEY_IN_USE`. Keys are scoped to the calling client (to its account, for a user
                 *     password token) and kept for 24 hours. A JSON `null` body and no body are the same
                 *     request (`null` is no body); `{}` is a body of its own.
                 *     A request that failed with a 5xx is not remembered, so it can be retried with the same key.
                 *     An answer that carries a secret (a user password token, a session nonce) is never stored:
                 *     its replay answers the same resources with a fresh token or nonce.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "advance_seconds": 90000
                 *     }
                 */
                "application/json": {
                    /** @description Seconds to move forward (at most 400 days). */
                    advance_seconds: number;
                };
            };
        };
        responses: {
            /** @description The clock after the move. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "Success",
                     *       "message": [],
                     *       "codes": [],
                     *       "payload": {
                     *         "now": "2026-11-28T22:40:00.000Z",
                     *         "offset_seconds": 90000
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ClockEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    resetSandboxClock: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request returns the first response again
                 *     (with `Idempotent-Replayed: true`); the same key with a different request gets `422
                 *     IDEMPOTENCY_KEY_REUSED`; the same key while the first request still runs gets `409
                 *     IDEMPOTENCY_KEY_IN_USE`. Keys are scoped to the calling client (to its account, for a user
                 *     password token) and kept for 24 hours. A JSON `null` body and no body are the same
                 *     request (`null` is no body); `{}` is a body of its own.
                 *     A request that failed with a 5xx is not remembered, so it can be retried with the same key.
                 *     An answer that carries a secret (a user password token, a session nonce) is never stored:
                 *     its replay answers the same resources with a fresh token or nonce.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clock, `offset_seconds` 0. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "Success",
                     *       "message": [],
                     *       "codes": [],
                     *       "payload": {
                     *         "now": "2026-11-27T21:40:00.000Z",
                     *         "offset_seconds": 0
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ClockEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    openSandboxDispute: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request returns the first response again
                 *     (with `Idempotent-Replayed: true`); the same key with a different request gets `422
                 *     IDEMPOTENCY_KEY_REUSED`; the same key while the first request still runs gets `409
                 *     IDEMPOTENCY_KEY_IN_USE`. Keys are scoped to the calling client (to its account, for a user
                 *     password token) and kept for 24 hours. A JSON `null` body and no body are the same
                 *     request (`null` is no body); `{}` is a body of its own.
                 *     A request that failed with a 5xx is not remembered, so it can be retried with the same key.
                 *     An answer that carries a secret (a user password token, a session nonce) is never stored:
                 *     its replay answers the same resources with a fresh token or nonce.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "invoice_id": "inv_01J9ZQ3X5D2V7K8M4N6P0R1S2T",
                 *       "payment_method_id": "pm_01J9ZQ3X5D2V7K8M4N6P0R1S2T"
                 *     }
                 */
                "application/json": {
                    invoice_id: components["schemas"]["Id"];
                    payment_method_id: components["schemas"]["Id"];
                    amount?: number;
                    reason?: components["schemas"]["DisputeReason"];
                };
            };
        };
        responses: {
            /** @description The dispute. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DisputeEnvelope"];
                };
            };
            202: components["responses"]["DisputeAccepted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description No such invoice for the caller's integrator (`INVOICE_NOT_FOUND`). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    closeSandboxDispute: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request returns the first response again
                 *     (with `Idempotent-Replayed: true`); the same key with a different request gets `422
                 *     IDEMPOTENCY_KEY_REUSED`; the same key while the first request still runs gets `409
                 *     IDEMPOTENCY_KEY_IN_USE`. Keys are scoped to the calling client (to its account, for a user
                 *     password token) and kept for 24 hours. A JSON `null` body and no body are the same
                 *     request (`null` is no body); `{}` is a body of its own.
                 *     A request that failed with a 5xx is not remembered, so it can be retried with the same key.
                 *     An answer that carries a secret (a user password token, a session nonce) is never stored:
                 *     its replay answers the same resources with a fresh token or nonce.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                dispute_id: components["parameters"]["DisputeIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "outcome": "lost"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    outcome: "won" | "lost";
                };
            };
        };
        responses: {
            /** @description The dispute, decided. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DisputeEnvelope"];
                };
            };
            202: components["responses"]["DisputeAccepted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["DisputeNotFound"];
            409: components["responses"]["DisputeConflict"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
}
