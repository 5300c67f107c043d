// Generated from openapi/disputes.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/v2/disputes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The integrator's disputes
         * @description Newest first (ties by id), `limit` at a time (default 20, at most 100) from `offset`; `total` counts all that match.
         */
        get: operations["listDisputes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/disputes/{dispute_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One dispute */
        get: operations["getDispute"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/disputes/{dispute_id}/evidence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Save (and submit) a dispute's evidence
         * @description Saves the evidence fields sent — each replaces what was saved, an empty string clears
         *     it, fields not sent stay — while the dispute is `NEEDS_RESPONSE`; with `submit: true`
         *     the evidence goes to the processor and the dispute is `UNDER_REVIEW`. Each field holds
         *     at most 20,000 characters (`400`, the field `TOO_LONG`) and all of them together
         *     150,000 (`400`, the field that passes it `TOTAL_TOO_LONG`). Another state answers `409
         *     DISPUTE_STATE_ERROR` with the dispute. Emits `dispute-updated`.
         *
         *     **A Stripe dispute** (`provider: stripe`): the fields sent go to Stripe's dispute first
         *     (`POST /v1/disputes/{id}` with `evidence` and `submit`, under an idempotency key made of
         *     the dispute, the evidence Holdfast had and what was sent) — saving without `submit`
         *     stages them at Stripe too, so Stripe's Dashboard shows the same evidence; fields Stripe
         *     holds that were not sent stay as they are. The call is made before anything is saved and
         *     holds no lock: only once Stripe took the evidence is it saved here. Stripe unreachable
         *     answers `503 PROVIDER_UNAVAILABLE` (nothing sent, nothing saved; send it again); Stripe
         *     refusing it (the dispute closed, or submitted already) answers `409
         *     DISPUTE_STATE_ERROR`, nothing saved.
         */
        post: operations["submitDisputeEvidence"];
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
        /** @enum {string} */
        DisputeStatus: "NEEDS_RESPONSE" | "UNDER_REVIEW" | "WON" | "LOST";
        /** @enum {string} */
        DisputeReason: "fraudulent" | "product_not_received" | "duplicate" | "subscription_canceled" | "unrecognized" | "general";
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
        EvidenceRequest: {
            product_description?: string;
            uncategorized_text?: string;
            access_activity_log?: string;
            refund_policy_disclosure?: string;
            cancellation_rebuttal?: string;
            customer_email_address?: string;
            service_date?: string;
            /**
             * @description Send the evidence to the processor: the dispute becomes UNDER_REVIEW.
             * @default false
             */
            submit?: boolean;
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
        Id: string;
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
    };
    responses: {
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
         * @description A rate limit was reached (`RATE_LIMITED`): requests with a user password token per account
         *     and minute (`USER_RATE_LIMIT_PER_MINUTE`, 300 by default), or cards added to one account per
         *     hour (`CARD_ADDS_PER_HOUR`, 20). `Retry-After` says in how many seconds to try again.
         */
        TooManyRequests: {
            headers: {
                "Retry-After"?: string;
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
        /** @description The body is larger than 1 MiB. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"];
            };
        };
        /** @description The body is not in a media type this operation accepts (JSON). */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"];
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
    };
    parameters: {
        DisputeIdPath: components["schemas"]["Id"];
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
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listDisputes: {
        parameters: {
            query?: {
                status?: components["schemas"]["DisputeStatus"];
                /** @description The buyer whose card was disputed. */
                account_id?: components["schemas"]["Id"];
                invoice_id?: components["schemas"]["Id"];
                /** @description Only disputes carrying this flag (`flags`), for an operator's review of the notices Holdfast could not take in full. */
                flag?: components["schemas"]["DisputeFlag"];
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of disputes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: {
                            total: number;
                            limit: number;
                            offset: number;
                            disputes: components["schemas"]["Dispute"][];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    getDispute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dispute_id: components["parameters"]["DisputeIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
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
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["DisputeNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    submitDisputeEvidence: {
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
                 *       "product_description": "500 gems, delivered to the player's account at once.",
                 *       "access_activity_log": "The account signed in from the same device 14 times after the purchase.",
                 *       "submit": true
                 *     }
                 */
                "application/json": components["schemas"]["EvidenceRequest"];
            };
        };
        responses: {
            /** @description The dispute with its evidence. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DisputeEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["DisputeNotFound"];
            409: components["responses"]["DisputeConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
            /**
             * @description `PROVIDER_UNAVAILABLE`: a Stripe dispute's evidence could not reach Stripe (it did not
             *     answer in time, failed, or no Stripe card processor runs here). Nothing was saved;
             *     `Retry-After` says in how many seconds to try again.
             */
            503: {
                headers: {
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"] & {
                        codes?: unknown;
                    };
                };
            };
        };
    };
}
