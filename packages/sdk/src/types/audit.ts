// Generated from openapi/audit.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/v2/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The integrator's audit trail
         * @description The integrator's audit records, newest first (`at`, ties by `audit_id`), `limit` at a time
         *     (default 20, at most 100) from `offset`; `total` counts all that match. Another
         *     integrator's records are never listed.
         */
        get: operations["listAudit"];
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
        /** @enum {string} */
        AuditAction: "payout.approve" | "payout.reject" | "payout.rail_outcome" | "kyc.decide" | "kyc.reopen" | "kyc.erase" | "integrator.fund" | "block.apply" | "block.lift" | "refund.request" | "dispute.evidence" | "client.rotate_secret" | "client.revoke" | "webhook.resend" | "webhook.replay" | "account.merge" | "console.user.add";
        AuditRecord: {
            /** @description The record's id (`aud_…`). */
            audit_id: string;
            at: components["schemas"]["Timestamp"];
            integrator_id: string;
            actor: {
                /**
                 * @description Where the action came from (an operator's console or `holdfast` CLI, or the integrator's server).
                 * @enum {string}
                 */
                kind: "console" | "cli" | "client";
                /** @description The operator's name, or the client's id. */
                id: string;
                name: string;
            };
            action: components["schemas"]["AuditAction"];
            target: {
                /** @enum {string} */
                type: "payout" | "account" | "integrator" | "invoice" | "dispute" | "client" | "event" | "webhook_endpoint" | "console_user";
                id: string;
            };
            /** @description Why, as the operator gave it (`--reason`); for a client's block its note or block reason, for a refund its reason. */
            reason: string | null;
            /** @description The state the action changed, as far as it is not personal data (`{"status": "FUNDS-IN-ESCROW", "attempt": 0}`). */
            before: Record<string, never> | null;
            /** @description The state it left (`{"status": "PROCESSING", "attempt": 1, …}`), or what it did (`{"refund_invoice_id": …}`). */
            after: Record<string, never> | null;
            /** @description The `X-Request-Id` of the API request that made it (null from the CLI). */
            request_id: string | null;
            /** @description Its place in the integrator's sealed chain (1, 2, …); null until sealed, a few seconds after it was recorded. */
            seq: number | null;
            sealed_at: components["schemas"]["Timestamp"] | null;
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
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listAudit: {
        parameters: {
            query?: {
                /** @description Only this action. */
                action?: components["schemas"]["AuditAction"];
                /** @description Only records about this object (a payout, account, invoice, dispute, client, event or webhook endpoint id). */
                target_id?: string;
                /** @description Only this actor, by its `id` or `name` (an operator's name, a client id). */
                actor?: string;
                /** @description Only records at or after this time (ISO 8601). */
                from?: string;
                /** @description Only records before this time (ISO 8601). */
                to?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit records. */
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
                            records: components["schemas"]["AuditRecord"][];
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
}
