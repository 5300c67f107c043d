// Generated from openapi/payments.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/v1/{account_id}/payment_methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an account's payment methods
         * @description Oldest first. A seller's wallet for a transaction is the entry with `provider` `wallet` and the transaction's `processing_currency`; its `provider_data.wallet_id` is the `destination_wallet_id` of a recipient.
         */
        get: operations["listPaymentMethods"];
        put?: never;
        /**
         * Add a card or a PayPal payout destination
         * @description `type: card` adds a card through the card processor: under the sandbox a test card (a new
         *     method each time; the same number has the same `psp_hash_code`); under Stripe a
         *     PaymentMethod id, attached to the account's one Stripe Customer (card numbers never reach
         *     Holdfast), its `psp_reference` the PaymentMethod and `psp_hash_code` Stripe's fingerprint. `type: paypal` adds a payout-only PayPal destination for the
         *     address (at most 254 characters, stored lower-cased); when the account already has one
         *     for that address, the answer is that method, unchanged (201, the same `id`).
         */
        post: operations["addPaymentMethod"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/{account_id}/payment_methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an account's payment methods (alias without `/v1`)
         * @description The same operation as `GET /v1/{account_id}/payment_methods` (`listPaymentMethods`),
         *     served without the version prefix for clients that call it there: same scopes, user
         *     password tokens, tenancy and answer. New clients use the `/v1` path.
         */
        get: operations["listPaymentMethodsAlias"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{account_id}/balances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's balances per currency
         * @description For each currency the account holds or has in escrow: `spendable`, what its wallets
         *     hold (for a token currency, the standard and the convertible wallet together — what
         *     pays a purchase) less what open disputes hold; `convertible`, the part in the convertible wallet (tokens received
         *     from sales; always 0 in fiat); `held`, what open disputes hold in its wallets (traced
         *     value of a disputed card charge: it cannot be spent, converted, paid out or merged away
         *     until the dispute is decided); `held_in_escrow`, the total of its `ESCROWED` escrows as
         *     buyer (already charged, not in `spendable`, released to the sellers at commit or back
         *     at cancel). Each in minor units and as a display string. The account's own user
         *     password token may read them; another account's answers 404.
         */
        get: operations["getAccountBalances"];
        put?: never;
        post?: never;
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
        CurrencyBalance: {
            currency: string;
            /** @description Minor units. */
            spendable: number;
            /** @description Like `USD 8.50`. */
            spendable_display: string;
            /** @description Minor units; 0 in fiat. */
            convertible: number;
            convertible_display: string;
            /** @description Minor units held by open disputes (not in `spendable`): see the Disputes API. */
            held: number;
            held_display: string;
            /** @description Minor units. */
            held_in_escrow: number;
            held_in_escrow_display: string;
        };
        /** @description A sandbox card (`type` `card`) or a PayPal payout destination (`type` `paypal`). */
        AddPaymentMethodRequest: {
            /** @enum {string} */
            type: "card" | "paypal";
        } & (components["schemas"]["AddCardRequest"] | components["schemas"]["AddPaypalRequest"]);
        AddPaypalRequest: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "paypal";
            paypal: {
                /**
                 * Format: email
                 * @description The PayPal account's address; stored lower-cased. `payout-fails@example.com` makes sandbox payouts fail.
                 */
                email: string;
            };
        };
        AddCardRequest: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "card";
            /**
             * @description A sandbox test card (`number`, `exp_month`, `exp_year`, `cvc`) when the card processor
             *     is the sandbox; a Stripe PaymentMethod id (`stripe_payment_method`) that Stripe's
             *     browser library or the integrator collected when it is Stripe. The other shape answers
             *     400 naming its field (`card.number` or `card.stripe_payment_method`, `NOT_ALLOWED`); a
             *     field its shape needs and lacks answers 400 naming it, `REQUIRED`.
             */
            card: {
                /** @description Digits only (the sandbox: with `exp_month`, `exp_year` and `cvc`). */
                number?: string;
                exp_month?: number;
                /** @description Four digits. */
                exp_year?: number;
                cvc?: string;
                /** @description A Stripe PaymentMethod id (`pm_…`; Stripe). */
                stripe_payment_method?: string;
            };
            full_name?: string;
        };
        PaymentMethod: {
            id: components["schemas"]["Id"];
            /** @description Same as `id`. */
            payment_method_id: components["schemas"]["Id"];
            account_id: components["schemas"]["Id"];
            /** @enum {string} */
            method_class: "wallet" | "pobo" | "card" | "paypal";
            display_string: string;
            /**
             * @description `wallet` marks a wallet; `pobo` and `card` are purchase-only methods; `paypal` is payout-only (never pays a purchase).
             * @enum {string}
             */
            provider: "wallet" | "pobo" | "card" | "paypal";
            psp_reference: string;
            psp_hash_code: string;
            processing_currency: string;
            /** @enum {string} */
            pm_state: "active";
            /** @description Name of the integrator. */
            integrator: string;
            created: components["schemas"]["Timestamp"];
            updated: components["schemas"]["Timestamp"];
            /** @description Wallets only; minor units. */
            wallet_balance?: string;
            provider_data: {
                wallet_id?: string;
                wallet_balance?: string;
                /** @enum {string} */
                wallet_type?: "fiat" | "standard" | "convertible";
                brand?: string;
                last4?: string;
                exp_month?: number;
                exp_year?: number;
                platform?: string;
                user_id?: string;
                /** @description PayPal methods only. */
                email?: string;
            };
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
        AccountBlockedEnvelope: components["schemas"]["FailureEnvelope"] & {
            message?: unknown;
            codes?: unknown;
            payload: string;
        };
        IdempotencyKeyInUseEnvelope: components["schemas"]["FailureEnvelope"] & {
            codes?: unknown;
        };
    };
    responses: {
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
        /** @description A request with the same `Idempotency-Key` is still running; retry later (`Retry-After`). */
        IdempotencyKeyInUse: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["IdempotencyKeyInUseEnvelope"];
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
    listPaymentMethods: {
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
            /** @description The payment methods. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["PaymentMethod"][];
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
    addPaymentMethod: {
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
                /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
                account_id: components["parameters"]["AccountIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AddPaymentMethodRequest"];
            };
        };
        responses: {
            /** @description The new payment method (for a PayPal address the account already has, that method). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["PaymentMethod"];
                    };
                };
            };
            /**
             * @description Invalid input, naming the field. Besides the schema's codes: `card.number`
             *     `INVALID_VALUE` (fails the Luhn check) or `NOT_A_TEST_CARD`; `card.exp_year`
             *     `EXPIRED` (the expiry month is over); `card.number` `NOT_ALLOWED` (a card number
             *     under the Stripe processor); `card.stripe_payment_method` `NOT_ALLOWED` (under the
             *     sandbox processor), `NOT_FOUND`, `DECLINED` (Stripe declines the card when it is attached: the message says why), `INVALID_VALUE` (Stripe refuses it otherwise) or `NOT_A_CARD`; `paypal.email` `INVALID_FORMAT` (not an
             *     e-mail address) or `TOO_LONG`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InputErrorEnvelope"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["AccountNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    listPaymentMethodsAlias: {
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
            /** @description The payment methods. */
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
                     *       "payload": [
                     *         {
                     *           "id": "pm_01JDQ3M6Z8X4V2K9T7R5N3P1HB",
                     *           "payment_method_id": "pm_01JDQ3M6Z8X4V2K9T7R5N3P1HB",
                     *           "account_id": "acct_01JDQ3M6YQ2W8E4R6T0Y1U3I5O",
                     *           "method_class": "wallet",
                     *           "display_string": "USD wallet",
                     *           "provider": "wallet",
                     *           "psp_reference": "",
                     *           "psp_hash_code": "",
                     *           "processing_currency": "USD",
                     *           "pm_state": "active",
                     *           "integrator": "acme-games",
                     *           "created": "2026-11-26T10:00:00.000Z",
                     *           "updated": "2026-11-26T10:00:00.000Z",
                     *           "wallet_balance": "1200",
                     *           "provider_data": {
                     *             "wallet_id": "wal_01JDQ3M6ZA1B2C3D4E5F6G7H8J",
                     *             "wallet_balance": "1200",
                     *             "wallet_type": "fiat"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["PaymentMethod"][];
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
    getAccountBalances: {
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
            /** @description The balances. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "Success",
                     *       "codes": [],
                     *       "message": [],
                     *       "payload": {
                     *         "account_id": "acc_01JDQ8YB2C3D4E5F6G7H8J9K0M",
                     *         "balances": [
                     *           {
                     *             "currency": "USD",
                     *             "spendable": 850,
                     *             "spendable_display": "USD 8.50",
                     *             "convertible": 0,
                     *             "convertible_display": "USD 0.00",
                     *             "held": 0,
                     *             "held_display": "USD 0.00",
                     *             "held_in_escrow": 150,
                     *             "held_in_escrow_display": "USD 1.50"
                     *           },
                     *           {
                     *             "currency": "VCD",
                     *             "spendable": 1200,
                     *             "spendable_display": "VCD 1200",
                     *             "convertible": 200,
                     *             "convertible_display": "VCD 200",
                     *             "held": 0,
                     *             "held_display": "VCD 0",
                     *             "held_in_escrow": 0,
                     *             "held_in_escrow_display": "VCD 0"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: {
                            account_id: components["schemas"]["Id"];
                            balances: components["schemas"]["CurrencyBalance"][];
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
}
