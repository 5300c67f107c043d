// Generated from openapi/payouts.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/v1/kyc/{account_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's KYC state
         * @description The account's identity check: `state` `NODATA` (nothing submitted; `kyc_id` null until
         *     a first submission is tried),
         *     `PROCESSING`, `MANUAL_REVIEW`, `ACCEPT`, `DENY` or `CANCEL`; `pii_level` `NONE`
         *     (nothing submitted, or cancelled), `BASIC` (submitted, not accepted) or `FULL` (only with
         *     `ACCEPT`); `kyc_requirements` the fields still to be provided: all five while the check
         *     takes a submission (before any, after the operator reopened it, and after the person
         *     abandoned their own verification), none otherwise — a `CANCEL` with none is the
         *     operator's, final until reopened. Never the personal data.
         */
        get: operations["getKyc"];
        put?: never;
        /**
         * Submit an account's personal data for its KYC check
         * @description What the hosted KYC flow sends, with the account's own user token (an integrator's
         *     client token cannot: personal data passes between the person and Holdfast only). Taken
         *     before any submission, after the operator reopened the check and after the person
         *     abandoned their own verification (`kyc_requirements` lists the fields then); otherwise
         *     `409 KYC_STATE_ERROR` naming the state — a `DENY` or an operator's `CANCEL` until the
         *     operator reopens it, a check `PROCESSING`, in `MANUAL_REVIEW` or `ACCEPT`. The data is
         *     stored apart from the check, and the identity verifier checks it (see above): the
         *     answer is the check's new state, with `verification_url` when the verifier started a
         *     session the person completes at the provider (`state` `PROCESSING`). Text is trimmed;
         *     each field missing or not valid is named in a `400`.
         */
        post: operations["submitKyc"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/{account_id}/payout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request a payout
         * @description Moves `amount` from the account's USD wallet (`source_payment_method_id`) to payout
         *     holding, so that it cannot be spent twice, and answers `201` with the payout in
         *     `FUNDS-IN-ESCROW` (a `payout.request` command: `SYNC_WAIT_MS`, or `202` + `Location` with `Prefer:
         *     respond-async`). Its destination is one of the
         *     account's payout methods (type `paypal`). A payout at or under the integrator's
         *     `payout_auto_approve_max` (default 0: none) is then approved and executed by itself;
         *     others wait for the operator (`npx holdfast payouts approve ID`). An execution sends it to
         *     the payout rail (`PROCESSING`: from then on it cannot be reversed), which pays it
         *     (`SUCCESS`), refuses it (`FAILED`: the money stays held for the operator) or, later, returns
         *     it (`RETURNED`: the money is back in the wallet). Refused, nothing moved:
         *     a `payouts` or `login` block (`403`, the blocked-account answer); KYC not `ACCEPT`
         *     (`409 KYC_REQUIRED`); an open dispute of a card charge of the account's (`409
         *     DISPUTE_OPEN`: its payouts wait for the dispute); a source that is not the account's USD wallet (`400` naming
         *     `source_payment_method_id`), a destination that is not its payout method (`400` naming
         *     `destination_payment_method_id`), a currency other than USD (`400` naming `currency`);
         *     as many open payouts (`FUNDS-IN-ESCROW`, `PROCESSING` or `FAILED`) as the integrator allows, 3 by
         *     default (`409 PAYOUT_LIMIT`); a wallet that cannot cover it (`400` naming `amount`,
         *     `INSUFFICIENT_BALANCE`). The checks run again under the account's lock when the command
         *     runs. Emits `payout-complete`.
         *
         *     `token_exchange_id` pays out a token conversion's money: the account's own `EXECUTED`
         *     exchange, not paid out by another payout (else `400` naming `token_exchange_id`:
         *     `NOT_FOUND`, `NOT_EXECUTED`, `ALREADY_PAID_OUT`), for exactly its `fiat_amount` less its
         *     `fee_amount` (else `400` naming `amount`, `MUST_MATCH_EXCHANGE`). Reversing such a payout
         *     (`DELETE`, or the operator's reject), or the rail returning it (`RETURNED`), reverses the
         *     conversion too: the money goes back to the integrator and the tokens to the convertible
         *     wallet.
         *
         *     The `202` of a request still running points at the payout (`Location:
         *     /v2/{account_id}/payout/{payout_status_id}`, which answers `404 PAYOUT_NOT_FOUND` until
         *     the request's command has run) and carries its command (`X-Command-Id`).
         */
        post: operations["requestPayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/{account_id}/payouts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's payouts
         * @description Newest first (ties by id), `limit` at a time (default 20, at most 100) from `offset`; `total` counts them all.
         */
        get: operations["listPayouts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/{account_id}/payout/{payout_status_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One payout of an account */
        get: operations["getPayout"];
        put?: never;
        post?: never;
        /**
         * Take a payout back (USER-REVERSED)
         * @description Only from `FUNDS-IN-ESCROW` or `FAILED`: the amount goes back from payout holding to the
         *     wallet and the payout is `USER-REVERSED` (a `payout.reverse` command; `200` with the
         *     payout, or `202` + `Location` with `Prefer: respond-async`). From any other state `409
         *     PAYOUT_STATE_ERROR` naming it — among them `PROCESSING`: a payout sent to the payout rail
         *     can no longer be taken back. A reversal racing the execution: exactly one of them
         *     happens, the other answers `409`. Emits `payout-complete`. A payout holding value an open
         *     card dispute traced (it waits for the dispute) may be taken back: what returns is held in
         *     the wallet until the dispute is decided (for a token conversion's payout, in the tokens
         *     the conversion gives back). A dispute that is LOST reverses such a payout itself
         *     (`SUPPORT-REVERSED`) and claws back what it returned.
         */
        delete: operations["reversePayout"];
        options?: never;
        head?: never;
        /**
         * Approve and execute a payout at once, or apply a rail outcome (staging only)
         * @description A testing shortcut, absent in production (`404`). Without a body it approves a payout in
         *     `FUNDS-IN-ESCROW` and has the payout rail execute it — with the sandbox rail `SUCCESS`
         *     (holding → the provider), `FAILED` for the failing destination `payout-fails@example.com`
         *     (the money stays held; approve it again, reverse it, or reject it), or `PROCESSING` for
         *     the unclaimed destination `payout-unclaimed@example.com` (as PayPal leaves a payout its
         *     receiver has not claimed). From any other state `409 PAYOUT_STATE_ERROR`; while a
         *     `payouts` or `login` block is active, `403`; when the account's KYC check is no longer
         *     `ACCEPT`, `409 KYC_REQUIRED`; a payout holding value an open card dispute traced, `409
         *     DISPUTE_OPEN` (it waits for the dispute). A `payout.execute` command.
         *
         *     With `rail_outcome` it applies that outcome of the payout rail to a `PROCESSING` payout's
         *     current attempt, as the provider's webhook would (a `payout.settle` command): `SUCCEEDED`
         *     → `SUCCESS`; `FAILED`, `BLOCKED`, `DENIED` → `FAILED` (held); `RETURNED` → `RETURNED`
         *     (the money back in the wallet); `UNCLAIMED` → still `PROCESSING`. Another state answers
         *     `409 PAYOUT_STATE_ERROR`. Emits `payout-complete` for each change of state.
         */
        patch: operations["executePayoutNow"];
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Kyc: {
            account_id: string;
            /** @description Null until the account's first submission or decision. */
            kyc_id: string | null;
            /** @enum {string} */
            state: "NODATA" | "PROCESSING" | "MANUAL_REVIEW" | "ACCEPT" | "DENY" | "CANCEL";
            /** @enum {string} */
            pii_level: "NONE" | "BASIC" | "FULL";
            kyc_requirements: ("first_name" | "last_name" | "date_of_birth" | "address" | "country")[];
            /**
             * Format: uri
             * @description Only in the answer of a submission whose verifier started a session (`state`
             *     `PROCESSING`): where to send the person to complete their verification with the
             *     provider. Short-lived, and not kept: it is in no other answer and no event. The
             *     sandbox verifier never sets it.
             */
            verification_url?: string | null;
        };
        KycEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["Kyc"];
        };
        Payout: {
            payout_status_id: string;
            account_id: string;
            /**
             * @description `FUNDS-IN-ESCROW`: held, waiting for approval. `PROCESSING`: sent to the payout rail, no
             *     longer reversible; the rail's outcome settles it. `SUCCESS`: paid. `FAILED`: the rail
             *     refused it; still held (the operator may approve it again, a new attempt, or it may be
             *     reversed). `RETURNED`: the rail gave the money back; it is in the wallet again.
             *     `USER-REVERSED`, `SUPPORT-REVERSED`: taken back to the wallet.
             * @enum {string}
             */
            payout_status: "FUNDS-IN-ESCROW" | "PROCESSING" | "SUCCESS" | "FAILED" | "RETURNED" | "USER-REVERSED" | "SUPPORT-REVERSED";
            amount: number;
            currency: string;
            source_payment_method_id: string;
            destination_payment_method_id: string;
            token_exchange_id: string | null;
            /** @description Empty until an execution fails (`destination_rejected` for the sandbox failing destination; for the PayPal rail its error name, or `payout_failed`, `payout_blocked`, `payout_denied`); a failed payout that is reversed keeps it, a new attempt clears it. */
            failure_code: string;
            failure_reason: string;
            /** Format: date-time */
            created: string;
            /** Format: date-time */
            updated: string;
        };
        PayoutEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["Payout"];
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
        AccountBlockedEnvelope: components["schemas"]["FailureEnvelope"] & {
            message?: unknown;
            codes?: unknown;
            payload: string;
        };
    };
    responses: {
        /** @description `PAYOUT_NOT_FOUND` (or `ACCOUNT_GET_ERROR` for the account): not the account's, or not the caller's integrator's. */
        PayoutNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"];
            };
        };
        /** @description `KYC_REQUIRED`, `DISPUTE_OPEN`, `PAYOUT_LIMIT`, `PAYOUT_STATE_ERROR` (naming the state), or the Idempotency-Key is in use. */
        PayoutConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"];
            };
        };
        /** @description Accepted; the payout as it stands (`Location` is the payout). */
        PayoutAccepted: {
            headers: {
                Location?: string;
                "X-Command-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["PayoutEnvelope"];
            };
        };
        /** @description Accepted; `payload` is the payout once its command has run, null before (`Location` is the payout). */
        PayoutRequestAccepted: {
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
         * @description The account (the buyer, a seller whose wallet a recipient names, or the account a session
         *     is asked for) is blocked: `message` and `codes` are empty and `payload` is a
         *     sentence naming the account id. Nothing was created.
         */
        AccountBlocked: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AccountBlockedEnvelope"];
            };
        };
        /**
         * @description No such account for the caller's integrator. An account of another integrator, or a
         *     path value that cannot be an id, answers exactly the same.
         */
        AccountNotFound: {
            headers: {
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
        PayoutIdPath: components["schemas"]["Id"];
        /** @description `respond-async`: answer `202` at once instead of waiting for the command. */
        Prefer: string;
        /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
        AccountIdPath: components["schemas"]["Id"];
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
    getKyc: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
                account_id: components["parameters"]["AccountIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's KYC state. */
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
                     *         "account_id": "acct_01JDW7Q3V9K2M4N6P8R0S2T4V6",
                     *         "kyc_id": "kyc_01JDW7R8X1A3C5E7G9J1L3N5Q7",
                     *         "state": "ACCEPT",
                     *         "pii_level": "FULL",
                     *         "kyc_requirements": []
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["KycEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["AccountNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    submitKyc: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
                account_id: components["parameters"]["AccountIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "first_name": "Ada",
                 *       "last_name": "Lovelace",
                 *       "date_of_birth": "1990-12-10",
                 *       "address": "1 Analytical Row, London",
                 *       "country": "GB"
                 *     }
                 */
                "application/json": {
                    first_name: string;
                    last_name: string;
                    /** @description YYYY-MM-DD, in the past. */
                    date_of_birth: string;
                    address: string;
                    /** @description ISO 3166-1 alpha-2 country code. */
                    country: string;
                };
            };
        };
        responses: {
            /** @description The check's new state. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KycEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["AccountNotFound"];
            /**
             * @description `KYC_STATE_ERROR`: the check takes no new submission in its state, which the message
             *     names (`The identity check is DENY: it takes no new submission until an operator
             *     reopens it.`).
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
            /**
             * @description `PROVIDER_UNAVAILABLE`: the identity verifier's provider did not answer in time or
             *     failed. Nothing was taken: the check stays as it was, and `Retry-After` says in how
             *     many seconds to try again. A retry of the same submission reuses the verification
             *     session the failed try may have started at the provider.
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
    requestPayout: {
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
                /** @description `respond-async`: answer `202` at once instead of waiting for the command. */
                Prefer?: components["parameters"]["Prefer"];
            };
            path: {
                /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
                account_id: components["parameters"]["AccountIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "source_payment_method_id": "pm_01JDW7P2T8J1L3N5Q7S9U1W3Y5",
                 *       "destination_payment_method_id": "pm_01JDW7P2T8J1L3N5Q7S9U1W3Y6",
                 *       "amount": 2500,
                 *       "currency": "USD"
                 *     }
                 */
                "application/json": {
                    source_payment_method_id: components["schemas"]["Id"];
                    destination_payment_method_id: components["schemas"]["Id"];
                    /** @description Minor units (cents). */
                    amount: number;
                    /** @enum {string} */
                    currency: "USD";
                    token_exchange_id?: components["schemas"]["Id"];
                };
            };
        };
        responses: {
            /** @description The payout, in `FUNDS-IN-ESCROW`. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayoutEnvelope"];
                };
            };
            202: components["responses"]["PayoutRequestAccepted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["AccountNotFound"];
            409: components["responses"]["PayoutConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    listPayouts: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
                account_id: components["parameters"]["AccountIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of payouts. */
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
                            payouts: components["schemas"]["Payout"][];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["AccountNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    getPayout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
                account_id: components["parameters"]["AccountIdPath"];
                payout_status_id: components["parameters"]["PayoutIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payout. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayoutEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["PayoutNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    reversePayout: {
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
                /** @description `respond-async`: answer `202` at once instead of waiting for the command. */
                Prefer?: components["parameters"]["Prefer"];
            };
            path: {
                /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
                account_id: components["parameters"]["AccountIdPath"];
                payout_status_id: components["parameters"]["PayoutIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payout, reversed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayoutEnvelope"];
                };
            };
            202: components["responses"]["PayoutAccepted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["PayoutNotFound"];
            409: components["responses"]["PayoutConflict"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    executePayoutNow: {
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
                /** @description `respond-async`: answer `202` at once instead of waiting for the command. */
                Prefer?: components["parameters"]["Prefer"];
            };
            path: {
                /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
                account_id: components["parameters"]["AccountIdPath"];
                payout_status_id: components["parameters"]["PayoutIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "rail_outcome": "RETURNED"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description The payout rail's outcome to apply to the `PROCESSING` payout (PayPal's payout item statuses).
                     * @enum {string}
                     */
                    rail_outcome?: "SUCCEEDED" | "FAILED" | "BLOCKED" | "DENIED" | "RETURNED" | "UNCLAIMED";
                };
            };
        };
        responses: {
            /** @description The payout, executed (`SUCCESS`, `FAILED` or `PROCESSING`), or as the outcome left it. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayoutEnvelope"];
                };
            };
            202: components["responses"]["PayoutAccepted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["PayoutNotFound"];
            409: components["responses"]["PayoutConflict"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
}
