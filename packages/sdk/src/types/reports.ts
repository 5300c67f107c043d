// Generated from openapi/reports.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/v2/exports/{kind}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export an integrator's records as CSV or JSON lines
         * @description The caller's integrator's records of one `kind`, oldest first (ties by id), created at or
         *     after `from` and strictly before `to` (UTC; either end open when absent):
         *
         *     | kind | rows | filters |
         *     | --- | --- | --- |
         *     | `statement` | the ledger entries on one account's wallets (as `getAccountStatement`), in the order balances changed; `from`/`to` on the posting's time | `account_id` (required) |
         *     | `invoices` | every invoice: purchases, escrow phase invoices and refund invoices | `account_id`, `states`, `invoice_types` |
         *     | `refunds` | refund invoices (`user_refund`, `user_refund_virtual`) | `account_id` (the buyer), `invoice_id` (the purchase refunded), `states` |
         *     | `payouts` | payouts | `account_id`, `status` (a payout status) |
         *     | `disputes` | disputes | `account_id` (the buyer), `invoice_id`, `status` (a dispute status), `flag` |
         *     | `events` | events of the last 30 days (as `listEvents`) | `account_id`, `type` |
         *     | `audit` | the audit trail's records (as `listAudit`, but oldest first); `from`/`to` on the record's `at`. Needs the scope `read_audit` besides `read_reports`: a token without it gets `401` `INSUFFICIENT_SCOPE` | `action`, `target_id`, `actor` (an actor's id or name) |
         *
         *     A filter of another kind answers `400` naming it (`NOT_A_FILTER_OF_KIND`); `to` at or
         *     before `from` names `to` (`BEFORE_FROM`); a statement without `account_id` names it
         *     (`REQUIRED`); an `account_id` of another integrator answers `404` as an unknown one.
         *
         *     **CSV** (`format=csv`, the default; `text/csv`): RFC 4180 — a header row of the column
         *     names, CRLF line ends, a value quoted (`"`, doubled inside) when it holds a comma, quote or
         *     line end. Amounts are integers in minor units (`amount`: `1234` is USD 12.34, tokens are
         *     whole) beside the same amount for people (`amount_display`: `12.34`, `-0.05`, `100` —
         *     digits only, no currency code, in the row's `currency`). Times are ISO 8601 UTC; an absent
         *     value is an empty field. A text value that a spreadsheet would run as a formula (it starts
         *     with `=`, `+`, `-`, `@`, a tab or a carriage return, and is not a plain number) is written
         *     with a leading `'`; JSON lines carry it as it is. **JSON lines** (`format=jsonl`; `application/x-ndjson`): one JSON
         *     object per line with the same keys (amounts as numbers, absent values `null`; an event's
         *     `payload` as the object it is rather than its text).
         *
         *     Columns, in order:
         *
         *     - `statement`: `entry_id`, `posted_at`, `account_id`, `wallet_id`, `wallet_type` (`fiat`,
         *       `standard`, `convertible`), `currency`, `amount` (+ into the wallet, − out),
         *       `amount_display`, `balance_after` (the wallet's balance right after the entry; empty for
         *       entries from before balances were recorded), `balance_after_display`, `reference` (the
         *       posting's, e.g. `invoice:<id>:pay`), `description`.
         *     - `invoices`: `invoice_id`, `created_at`, `updated_at`, `account_id`, `invoice_type`,
         *       `state`, `currency`, `amount` (the invoice's total), `amount_display`, `escrow_id`,
         *       `refunded_invoice_id` (on a refund invoice: the purchase), `reference_type`,
         *       `reference_id`, `description`, `failure_reason`.
         *     - `refunds`: `refund_invoice_id`, `created_at`, `updated_at`, `account_id`,
         *       `refunded_invoice_id`, `invoice_type`, `state` (`SUCCESS`, `FAILED`, `PROCESSING`),
         *       `currency`, `amount` (what the refund asked for), `amount_display`, `failure_reason`.
         *     - `payouts`: `payout_id`, `created_at`, `updated_at`, `account_id`, `status`, `currency`,
         *       `amount`, `amount_display`, `destination_payment_method_id`, `token_exchange_id`,
         *       `attempt`, `failure_code`, `failure_reason`.
         *     - `disputes`: `dispute_id`, `created_at`, `closed_at`, `account_id`, `invoice_id`,
         *       `payment_method_id`, `status`, `reason`, `funds`, `currency`, `amount`,
         *       `amount_display`, `reported_amount`, `fee`, `fee_display`, `provider`, `flags` (space-separated).
         *     - `events`: `event_id`, `created_at`, `type`, `account_id` (the account the event names,
         *       if any), `payload` (the body its webhook deliveries carry, as JSON text in CSV).
         *     - `audit`: `audit_id`, `at`, `actor_kind` (`cli`, `client`, `console`), `actor_id`,
         *       `actor_name`, `action`, `target_type`, `target_id`, `reason`, `request_id`, `seq` (the
         *       record's place in its sealed chain; empty — `null` in JSON lines — until it is sealed, a
         *       few seconds after it commits), `before` and `after` (the states the action moved
         *       between, as JSON text in CSV and as objects in JSON lines; empty or `null` when none).
         *       The same values `listAudit` answers, flattened: `actor.kind` is `actor_kind`,
         *       `target.id` is `target_id`.
         *
         *     The same from the command line: `holdfast export KIND --integrator NAME … > file.csv`.
         */
        get: operations["exportRows"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/reports/settlement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One UTC day's settlement, per currency, from the ledger
         * @description The caller's integrator's money of one UTC day (`date`, midnight to midnight UTC, on the
         *     time each posting was made), per currency that moved. Every line is the sum of the entries
         *     of the ledger postings it names, on the accounts it names (entries are + credit, − debit),
         *     and `postings` says how many postings it sums, so each figure can be found again in the
         *     ledger:
         *
         *     | line | postings | accounts | sign |
         *     | --- | --- | --- | --- |
         *     | `gross_charges` | `invoice:<id>:pay`, `escrow:<id>:pay` | card and POBO clearing | − (charges debit them) |
         *     | `refunds` | `invoice:<id>:refund`, `escrow:<id>:cancel`, `refund:<id>:<pm>:reversed` | card and POBO clearing | + (a reversed card refund counts back) |
         *     | `disputes_opened` | `dispute:<id>:open` | dispute holding | + |
         *     | `disputes_won` | `dispute:<id>:won` | dispute holding | − |
         *     | `disputes_lost` | `dispute:<id>:lost` | dispute losses | + |
         *     | `dispute_fees` | `dispute:<id>:open` | dispute fees | + |
         *     | `payouts_sent` | `payout:<id>:execute` | payout clearing | + |
         *     | `payouts_returned` | `payout:<id>:return` | payout holding | − |
         *     | `conversions` | `exchange:<id>:execute`, less `exchange:<id>:reverse` | the players' wallets, by size | in USD what players received for tokens; in the token currency the tokens converted |
         *
         *     `net` = `gross_charges` − `refunds` − `disputes_opened` − `dispute_fees` + `disputes_won`
         *     − `payouts_sent`: what came in from outside less what went back out. A lost dispute's
         *     money left when it opened, and a returned payout's never left; conversions move money
         *     inside Holdfast. Amounts are minor units, with `amount_display` for people (`12.34`).
         *     A day with nothing moved has no lines. The same from the command line: `holdfast report
         *     settlement --date YYYY-MM-DD [--integrator NAME] [--csv]`.
         */
        get: operations["getSettlementReport"];
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
        SettlementReport: {
            integrator_id: string;
            /** Format: date */
            date: string;
            /**
             * Format: date-time
             * @description The day's start (inclusive).
             */
            from: string;
            /**
             * Format: date-time
             * @description The next day's start (exclusive).
             */
            to: string;
            /** @description Per currency (alphabetically), every line in the order of the table, `net` last. */
            lines: components["schemas"]["SettlementLine"][];
        };
        SettlementLine: {
            currency: string;
            /** @enum {string} */
            line: "gross_charges" | "refunds" | "disputes_opened" | "disputes_won" | "disputes_lost" | "dispute_fees" | "payouts_sent" | "payouts_returned" | "conversions" | "net";
            /** @description Minor units. */
            amount: number;
            /** @description The amount in the currency's units: `12.34`, `-0.05`, `100`. */
            amount_display: string;
            /** @description How many postings the line sums; null for `net`, which adds up lines. */
            postings: number | null;
        };
        Id: string;
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
        /** @enum {string} */
        EventName: "register-account-completed" | "account-block-unblock-webhook" | "escrow-transaction-update" | "invoice-completed" | "refund-completed" | "kyc-webhook" | "payout-complete" | "token-exchange-completed" | "dispute-opened" | "dispute-updated" | "dispute-closed";
        /** @enum {string} */
        AuditAction: "payout.approve" | "payout.reject" | "payout.rail_outcome" | "kyc.decide" | "kyc.reopen" | "kyc.erase" | "integrator.fund" | "block.apply" | "block.lift" | "refund.request" | "dispute.evidence" | "client.rotate_secret" | "client.revoke" | "webhook.resend" | "webhook.replay" | "account.merge" | "console.user.add";
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
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    exportRows: {
        parameters: {
            query?: {
                /** @description `csv` (the default) or `jsonl` (JSON lines). */
                format?: "csv" | "jsonl";
                /**
                 * @description Rows created (a statement's entries posted) at or after this time (inclusive).
                 * @example 2026-11-01T00:00:00Z
                 */
                from?: string;
                /**
                 * @description Rows created strictly before this time; after `from` when both are given.
                 * @example 2026-12-01T00:00:00Z
                 */
                to?: string;
                /** @description One account's rows (required for `statement`). Any kind but `audit`. */
                account_id?: components["schemas"]["Id"];
                /** @description `refunds`: the refunds of this purchase; `disputes`: the disputes of this invoice. */
                invoice_id?: components["schemas"]["Id"];
                /** @description `invoices`, `refunds`: comma-separated invoice states, e.g. `SUCCESS,FAILED`. */
                states?: string;
                /** @description `invoices`: comma-separated invoice types (those `listAccountInvoices` takes). */
                invoice_types?: string;
                /** @description `payouts`: a payout status; `disputes`: a dispute status (another kind's status → 400 `INVALID_VALUE`). */
                status?: "FUNDS-IN-ESCROW" | "PROCESSING" | "SUCCESS" | "FAILED" | "RETURNED" | "USER-REVERSED" | "SUPPORT-REVERSED" | "NEEDS_RESPONSE" | "UNDER_REVIEW" | "WON" | "LOST";
                /** @description `disputes`: only disputes carrying this flag (as `GET /v2/disputes?flag=`). */
                flag?: components["schemas"]["DisputeFlag"];
                /** @description `events`: one event type. */
                type?: components["schemas"]["EventName"];
                /** @description `audit`: only this action (as `GET /v2/audit?action=`). */
                action?: components["schemas"]["AuditAction"];
                /** @description `audit`: only records about this object (a payout, account, invoice, dispute, client, event or webhook endpoint id). */
                target_id?: string;
                /** @description `audit`: only this actor, by its `id` or `name` (an operator's name, a client id, a console user's email). */
                actor?: string;
            };
            header?: never;
            path: {
                /** @description What to export. */
                kind: "statement" | "invoices" | "refunds" | "payouts" | "disputes" | "events" | "audit";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description The file, streamed (`Content-Disposition: attachment; filename="holdfast-<kind>-<time>.csv"`
             *     or `.jsonl`). A connection cut before its end is a failed export: ask again.
             */
            200: {
                headers: {
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example invoice_id,created_at,updated_at,account_id,invoice_type,state,currency,amount,amount_display,escrow_id,refunded_invoice_id,reference_type,reference_id,description,failure_reason
                     *     inv_01JD…,2026-11-28T10:00:00.000Z,2026-11-28T10:00:01.000Z,acct_01JD…,user_purchase,SUCCESS,USD,1234,12.34,,,,,Sword,
                     */
                    "text/csv": string;
                    /** @example {"payout_id":"po_01JD…","created_at":"2026-11-28T10:00:00.000Z","status":"SUCCESS","currency":"USD","amount":500,"amount_display":"5.00"} */
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    getSettlementReport: {
        parameters: {
            query: {
                /**
                 * @description The UTC day, `YYYY-MM-DD`.
                 * @example 2026-11-28
                 */
                date: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The day's settlement. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["SettlementReport"];
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
