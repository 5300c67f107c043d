// Generated from openapi/auth.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get an access token
         * @description **Client credentials.** Send `grant_type=client_credentials` and the client's credentials, either as
         *     `client_id` / `client_secret` parameters or with HTTP Basic
         *     (`Authorization: Basic base64(client_id:client_secret)`). Parameters may come as a form
         *     body, a JSON body or the query string. `scope` (space- or comma-separated) narrows the
         *     token to some of the client's scopes; without it the token carries all of them.
         *
         *     **Secrets in the query string are discouraged.** `client_secret` and `refresh_token` in
         *     the query string are accepted for clients that already send them there, but a URL ends
         *     up in proxies' and browsers' logs and histories: send them in the body or use HTTP
         *     Basic. A server run with `TOKEN_QUERY_CREDENTIALS=false` refuses them there with 400
         *     `invalid_request` naming the parameter; `grant_type`, `client_id` and `scope` stay
         *     accepted in the query string.
         *     An `Idempotency-Key` header is accepted and ignored: asking again just issues another token.
         *
         *     **Unknown parameters are ignored** (RFC 6749 §3.2), in the body and in the query string
         *     alike; the parameters described here are still checked. A client that sends its
         *     parameters in the query string with an unrelated JSON body (such as
         *     `{"headers":{"Content-Type":"application/json"}}`) gets its token.
         *
         *     **Refresh.** Send `grant_type=refresh_token` and a `refresh_token` from
         *     `POST /authorize/user` to get a new user password token `{access_token, token_type,
         *     refresh_token, expiry}`. Refresh tokens rotate: each works once, and presenting a spent
         *     one revokes the whole session (every refresh token issued from it) and answers
         *     `invalid_grant`. Refresh tokens live 30 days; a login-blocked account's stop working.
         *     Client credentials are optional here (an app holding only the user's session can
         *     refresh it); when sent, they must be the client that opened the session. The new
         *     access token carries the scopes of the token that opened the session, as far as the
         *     client still holds them at the time of the refresh.
         */
        post: operations["issueToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/authorize/user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a user session
         * @description Opens a session for one account of the caller's integrator. Without
         *     `return_token`, the payload holds `redirect`: `{web_url}/ui/appauth/<nonce>`, a link that
         *     opens a secure session in the hosted pages; the nonce works once and expires after 24 h.
         *     With `return_token: true`, the payload holds `token`: a user password token bound to that
         *     one account (`expiry` is when the access token expires, 3600 s on) and a refresh token for
         *     `POST /token` with `grant_type=refresh_token`. A user password token is accepted only by
         *     operations that list `user_auth`, only for its own account, and only with the scope the
         *     operation lists there: it carries the scopes of the token that opened the session, as
         *     far as the client still holds them, so it never does more than that token could (a
         *     token with only `write_user_tokens`, or one narrowed to it with `scope`, opens sessions
         *     that can call none of them).
         *
         *     The redirect opens the hosted flow its `flow` query names (the widget's `flow` option
         *     sets it): `payment-selection` by default, `transaction-history`, `receipt` (with
         *     `invoice_id`), `kyc` (the account's identity check, ending with `svc.kyc.complete`
         *     `{state}`) or `payout` (choose or add a PayPal payout destination, ending with
         *     `svc.pm.complete` `{id, pm_state}`). `kyc` needs a session opened by a token holding
         *     `read_kyc` and `write_process_credits`, `payout` one holding `read_payment_methods` and
         *     `write_payment_methods`; otherwise the page says it cannot open.
         *
         *     A login-blocked account gets 403 (empty `message` and `codes`, `payload` names the
         *     account) and no redirect or token is created.
         */
        post: operations["authorizeUser"];
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
        AuthorizeUserRequest: {
            account_id: components["schemas"]["Id"];
            /** @default false */
            return_token?: boolean;
        };
        UserToken: {
            access_token: string;
            /** @constant */
            token_type: "Bearer";
            refresh_token: string;
            expiry: components["schemas"]["Timestamp"];
        };
        /** @description Parameters not described here are ignored (RFC 6749 §3.2). */
        TokenRequest: {
            /** @description `client_credentials` or `refresh_token`. */
            grant_type?: string;
            client_id?: string;
            client_secret?: string;
            scope?: string;
            /** @description With `grant_type=refresh_token`. */
            refresh_token?: string;
        } & {
            [key: string]: unknown;
        };
        TokenResponse: {
            access_token: string;
            /** @constant */
            token_type: "Bearer";
            /** @description Seconds until the token expires. */
            expires_in: number;
            /** @description Space-separated scopes the token carries. */
            scope: string;
        };
        OAuthError: {
            /** @enum {string} */
            error: "invalid_request" | "invalid_client" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type" | "invalid_scope" | "server_error";
            error_description?: string;
        };
        /**
         * Format: date-time
         * @description ISO 8601, UTC.
         */
        Timestamp: string;
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
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    issueToken: {
        parameters: {
            query?: {
                grant_type?: string;
                client_id?: string;
                /**
                 * @deprecated
                 * @description Discouraged (send it in the body or with HTTP Basic); refused where `TOKEN_QUERY_CREDENTIALS=false`.
                 */
                client_secret?: string;
                scope?: string;
                /**
                 * @deprecated
                 * @description Discouraged (send it in the body); refused where `TOKEN_QUERY_CREDENTIALS=false`.
                 */
                refresh_token?: string;
            };
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["TokenRequest"];
                "application/json": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description An access token. */
            200: {
                headers: {
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"] | components["schemas"]["UserToken"];
                };
            };
            /**
             * @description `invalid_request` (malformed or missing parameter, or a secret in the query string
             *     where `TOKEN_QUERY_CREDENTIALS=false`), `unsupported_grant_type`,
             *     `invalid_scope` (a scope the client does not have), `invalid_grant` (a refresh token
             *     that is unknown, spent, revoked, expired, of another client, or of a blocked account).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /**
             * @description `invalid_client`: unknown client or wrong secret. `WWW-Authenticate: Basic` comes
             *     with it, except to a request sent with `X-Requested-With: XMLHttpRequest` (a page's
             *     script, such as the Authorize button of `/docs`), where the browser would open its own
             *     login prompt.
             */
            401: {
                headers: {
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description Body larger than 1 MiB (`invalid_request`). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description Body in another media type than form or JSON (`invalid_request`). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description Server error (`server_error`). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
        };
    };
    authorizeUser: {
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
                "application/json": components["schemas"]["AuthorizeUserRequest"];
            };
        };
        responses: {
            /** @description The session. Responses carry `Cache-Control: no-store`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: {
                            /** Format: uri */
                            redirect: string;
                        } | {
                            token: components["schemas"]["UserToken"];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["AccountNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
}
