// Generated from openapi/webhooks.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/v2/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The integrator's webhook endpoints */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description The answer carries the signing secret (`whsec_` + base64); it is shown only here and at rotation.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook endpoint and its recent delivery attempts */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description No more deliveries go to it; its pending ones are given up.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/webhooks/{webhook_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description A new secret (shown once). The previous one keeps signing too (a second signature) for 24 h, so receivers can switch without losing a delivery.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/webhooks/{webhook_id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-enable a disabled endpoint
         * @description Deliveries resume for new events; replay what it missed with `npx holdfast webhooks replay --endpoint ID --since T`.
         */
        post: operations["enableWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The integrator's events of the last 30 days
         * @description The events Holdfast recorded for the caller's integrator in the last 30 days (older ones are
         *     never listed), newest first unless `sort=asc`, `limit` at a time (default 20, at most 100)
         *     from `offset`; `total` is how many match the filters in all. Filters combine: `type`, the
         *     `account_id` the event names, and a creation-time range `created_after` (at or after,
         *     inclusive) … `created_before` (strictly before), ISO 8601 with a time zone. Each event's
         *     `payload` is the body its deliveries carry.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/events/{event_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An event and its delivery attempts
         * @description The event (while it is kept: 30 days after it was relayed, longer while a delivery of it is
         *     pending) and its deliveries, one per endpoint it was sent to, each with its `status`
         *     (`pending`, `delivered`, `dead`) and every attempt kept, oldest first.
         */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/events/{event_id}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an event again
         * @description What `npx holdfast webhooks replay --event ID` does, for the caller's own events: sends the
         *     event again — with the same `webhook-id` — to the endpoint named by `endpoint_id`, or
         *     without it to every enabled endpoint subscribed to the event's type, including one added
         *     since the event. Each delivery starts a fresh retry schedule; `resent` lists them. A
         *     delivery still being retried is left to its schedule and not listed; a disabled endpoint
         *     is skipped. A named endpoint must be the caller's (`404 WEBHOOK_GET_ERROR`), subscribed to
         *     the event's type (`400`, `endpoint_id`: `NOT_SUBSCRIBED`; an endpoint's events never
         *     change) and enabled (`409 WEBHOOK_DISABLED`: enable it first with `enableWebhook`).
         *     `Location` is the event, whose deliveries show the new attempts.
         */
        post: operations["resendEvent"];
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
        EventName: "register-account-completed" | "account-block-unblock-webhook" | "escrow-transaction-update" | "invoice-completed" | "refund-completed" | "kyc-webhook" | "payout-complete" | "token-exchange-completed" | "dispute-opened" | "dispute-updated" | "dispute-closed";
        WebhookRequest: {
            /** @description Where deliveries go (`https`; see the targets rule above). Codes `INVALID_URL`, `HTTPS_REQUIRED`, `PRIVATE_TARGET`. */
            url: string;
            events: components["schemas"]["EventName"][];
            description?: string;
        };
        Endpoint: {
            id: string;
            url: string;
            events: components["schemas"]["EventName"][];
            description: string | null;
            /** @enum {string} */
            status: "enabled" | "disabled" | "deleted";
            disabled_reason: string | null;
            created: components["schemas"]["Timestamp"];
            updated: components["schemas"]["Timestamp"];
        };
        Attempt: {
            attempted_at: components["schemas"]["Timestamp"];
            event_id: string;
            event_name: components["schemas"]["EventName"];
            /** @description The receiver's HTTP status; null when no answer came. */
            status_code: number | null;
            latency_ms: number;
            ok: boolean;
            /** @description Why the attempt failed: `HTTP 503` (the answer), `timed out` (none within 10 s), or `target unreachable` (no answer for any other reason, the same text whatever it was). */
            error: string | null;
        };
        EndpointEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["Endpoint"];
        };
        EndpointWithSecretEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["Endpoint"] & {
                secret: string;
            };
        };
        Event: components["schemas"]["EventFields"];
        EventFields: {
            /** @description The event id: the `webhook-id` of its deliveries. */
            id: string;
            type: components["schemas"]["EventName"];
            created: components["schemas"]["Timestamp"];
            /** @description The account the event is about (its message's `account_id`). */
            account_id: string | null;
            /** @description The body every delivery of the event carries (its JSON is what is signed). */
            payload: {
                id: string;
                event_name: components["schemas"]["EventName"];
                message: Record<string, never>;
                created: components["schemas"]["Timestamp"];
                integrator: string;
            };
        };
        EventWithDeliveries: components["schemas"]["EventFields"] & {
            deliveries: components["schemas"]["EventDelivery"][];
        };
        EventDelivery: {
            id: string;
            endpoint_id: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "dead";
            /**
             * Format: date-time
             * @description When a pending delivery is tried next; null once it is delivered or dead.
             */
            next_attempt_at: string | null;
            created: components["schemas"]["Timestamp"];
            /** Format: date-time */
            finished: string | null;
            /** @description Every attempt kept (30 days), oldest first, across resends. */
            attempts: components["schemas"]["Attempt"][];
        };
        ResendRequest: {
            /** @description Only this endpoint; without it, every enabled endpoint subscribed to the event's type. */
            endpoint_id?: components["schemas"]["Id"];
        };
        ResendAccepted: {
            event_id: string;
            resent: {
                endpoint_id: string;
                delivery_id: string;
            }[];
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
    };
    responses: {
        /** @description No such event for the caller's integrator (`EVENT_GET_ERROR`). */
        EventNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"] & {
                    codes?: unknown;
                };
            };
        };
        /** @description No such endpoint for the caller's integrator (`WEBHOOK_GET_ERROR`). */
        WebhookNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"] & {
                    codes?: unknown;
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
        /** @example evt_0193b2c4e1f2a3b4c5d6e7f8a9 */
        EventIdPath: components["schemas"]["Id"];
        WebhookIdPath: components["schemas"]["Id"];
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
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoints (no secrets), oldest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["Endpoint"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            500: components["responses"]["ServerError"];
        };
    };
    createWebhook: {
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
                "application/json": components["schemas"]["WebhookRequest"];
            };
        };
        responses: {
            /** @description The endpoint, with its secret. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointWithSecretEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint and its last 20 attempts, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["Endpoint"] & {
                            recent_attempts: components["schemas"]["Attempt"][];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["WebhookNotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    deleteWebhook: {
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
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint, `status` deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["WebhookNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    rotateWebhookSecret: {
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
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint with its new secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointWithSecretEnvelope"] & {
                        payload?: {
                            previous_secret_expires_at: components["schemas"]["Timestamp"];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["WebhookNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    enableWebhook: {
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
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint, enabled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["WebhookNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @example escrow-transaction-update */
                type?: components["schemas"]["EventName"];
                /** @example acct_0193b2c4d5e6f708192a3b4c5d */
                account_id?: components["schemas"]["Id"];
                /**
                 * @description Events created at or after this time (inclusive).
                 * @example 2026-11-01T00:00:00Z
                 */
                created_after?: string;
                /**
                 * @description Events created strictly before this time.
                 * @example 2026-12-01T00:00:00Z
                 */
                created_before?: string;
                limit?: number;
                offset?: number;
                /** @description By creation time (then id); `desc`, newest first, by default. */
                sort?: "asc" | "desc";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events and how many match. */
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
                            events: components["schemas"]["Event"][];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            500: components["responses"]["ServerError"];
        };
    };
    getEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example evt_0193b2c4e1f2a3b4c5d6e7f8a9 */
                event_id: components["parameters"]["EventIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event with its deliveries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["EventWithDeliveries"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["EventNotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    resendEvent: {
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
                /** @example evt_0193b2c4e1f2a3b4c5d6e7f8a9 */
                event_id: components["parameters"]["EventIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ResendRequest"];
            };
        };
        responses: {
            /** @description Accepted; the deliveries made or restarted. */
            202: {
                headers: {
                    /** @description The event (`getEvent`). */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["ResendAccepted"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description No such event (`EVENT_GET_ERROR`) or endpoint (`WEBHOOK_GET_ERROR`) for the caller's integrator. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            /** @description The named endpoint is disabled (`WEBHOOK_DISABLED`), or the Idempotency-Key is in use. */
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
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
}
