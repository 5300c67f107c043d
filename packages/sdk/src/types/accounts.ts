// Generated from openapi/accounts.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register an account
         * @description Creates an account with a username and either an email address or external platform
         *     user ids (exactly one of the two). The account gets a USD wallet payment method (plus
         *     standard and convertible token wallets when the integrator has a token currency) and,
         *     per external platform user id, a `pobo` payment method carrying the name and address.
         *     Emits `register-account-completed`.
         */
        post: operations["registerAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/user-info/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Look up an account by username
         * @description Plus and at-sign in the username must be URL-encoded (`%2B`, `%40`), as
         *     `encodeURIComponent` and `URLSearchParams` do: the query string is read with form
         *     encoding, so an unencoded `+` means a space.
         */
        get: operations["searchAccountByUsername"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/user-info/{account_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Look up an account profile */
        get: operations["getAccountProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user-info/{account_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Update an account (partial)
         * @description Changes only the fields sent (at least one). A new external platform user id adds a
         *     `pobo` payment method; an id already linked to another account answers 409 with that
         *     account's id, and a platform already linked to this account with another id answers 409
         *     `EXTERNAL_PLATFORM_ALREADY_LINKED`. A new email address keeps the `email_id` and takes
         *     its verification state from `requires_verification`.
         */
        put: operations["updateAccount"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{account_id}/user-info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Look up an account (earlier generation)
         * @description Any valid client token; no scope needed.
         */
        get: operations["getAccountProfileLegacy"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user-info/{account_id}/tos/svc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Has the account signed the current ToS?
         * @description `signed_tos` is true only when the account signed the current version; publishing a new
         *     version makes it false again. The body is the bare status object, not in the envelope.
         *     The account's own user password token may ask too (the hosted checkout does).
         */
        get: operations["getTosStatus"];
        put?: never;
        /**
         * Sign the current ToS for the account
         * @description Needs the `sign_tos` scope and ToS signing enabled for the client by the operator
         *     (`holdfast client create --tos-signing`); without it, 403 `TOS_SIGNING_NOT_ENABLED`.
         *     Signing again is harmless. The account's own user password token may sign too — the user
         *     accepting the terms in the hosted checkout — when the client that opened its session
         *     holds `sign_tos` and has ToS signing enabled.
         */
        post: operations["signTos"];
        /**
         * Remove the account's signature of the current ToS (staging only)
         * @description For integration testing. When `APP_ENV=production` this operation does not exist (405, `Allow: GET, POST`).
         */
        delete: operations["unsignTos"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The current terms of service
         * @description No token needed. The body is the bare ToS content, not in the envelope.
         */
        get: operations["getCurrentTos"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/block": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Block a capability of an account
         * @description Blocks one capability of an account. `login` keeps the account out of
         *     the platform and includes every other capability; `transactions` stops buying and
         *     selling; `payouts` stops payouts (new requests and the execution of open ones; taking one back
         *     stays possible). A publisher client may block `login` with
         *     reason `account_close` only (else 400 `OPERATOR_ONLY` on the field); an operator client
         *     may use every capability and reason, and its blocks have issuer `svc`. Blocking a
         *     capability that is already blocked changes nothing (the existing block stays, no event).
         *     Blocks never expire. A `login` block also ends the account's user sessions. Emits
         *     `account-block-unblock-webhook` with `{account_id, blocks, is_blocked, action, capability, integrator}`.
         *     The answer is the bare block response (`Blocks`), not in the envelope.
         */
        post: operations["blockAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/block/{account_id}/capability/{block_capability}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove the block of one capability
         * @description Removes the active block of a capability and answers the remaining blocks.
         *     Permission: the operator may remove any block; a publisher only when its client
         *     holds the can-unblock licence (`holdfast client create --can-unblock`) and only a block
         *     with issuer `publisher` — never one issued by `svc`. Otherwise 403 `BLOCK_PERMISSION_ERROR`
         *     and the block stays. A capability that is not blocked is already as asked: 200, no event.
         *     Emits `account-block-unblock-webhook`.
         */
        delete: operations["unblockAccount"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/block/{account_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The active blocks of an account */
        get: operations["getAccountBlocks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{account_id}/user-info/block": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Block an account (earlier generation)
         * @description The earlier block call: the same block as `POST /v2/block`, with the same rules. Without a
         *     body (or with `{}`) it blocks `login` with reason `account_close`; the optional body may
         *     name another capability and reason (operator clients only) and a note. Answers
         *     `{is_blocked: true}` in the envelope.
         */
        post: operations["blockAccountLegacy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{account_id}/user-info/unblock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unblock an account (earlier generation)
         * @description Removes every active block of the account, all or nothing: if the caller may not remove
         *     one of them (the permission of `unblockAccount`, `DELETE /v2/block/…`), 403 `BLOCK_PERMISSION_ERROR` and no
         *     block changes. Answers `{is_blocked: false}` in the envelope; an account with no block
         *     answers the same with no event. No body.
         */
        post: operations["unblockAccountLegacy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/merge-accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Merge one account into another
         * @description Closes the source account and moves its virtual token balances (standard and
         *     convertible wallets) into the destination's matching wallets. In one
         *     transaction: the balances move in the ledger, the source gets a `login` block (reason
         *     `merge_account`, issuer `svc`), both accounts get a tag in the `account-merge` namespace
         *     (`merged-into` on the source, `merged-from` on the destination, `resource_id` = the
         *     other account), and `account-block-unblock-webhook` is emitted for the source.
         *
         *     Refused with 409 `ACCOUNT_MERGE_ERROR` (nothing changes, the message says why) when the
         *     source is already closed or merged (an active `login` block), the destination is
         *     login-blocked, a purchase that is not finished names the source — as buyer or as payee
         *     (a recipient's wallet is the source's, or a token purchase issues to it): an `OPEN` or
         *     `ESCROWED` escrow, an `OPEN` standard or token purchase invoice, an authorized invoice not
         *     yet paid — or the source holds a USD balance (fiat is not merged: move it first). Finish
         *     such purchases first: pay them, then commit or cancel an escrow. Both accounts must
         *     belong to the caller's integrator (404) and differ (400 `SAME_AS_SOURCE`).
         *
         *     Money never lands in a merged account. A purchase being created holds the accounts it
         *     names while it is written, so it either finishes first (and refuses the merge) or waits
         *     for the merge and is refused (403, the source is blocked). Escrow pay and commit and
         *     invoice pay refuse (409) a purchase that would pay a merged account.
         *
         *     Runs as a command on a worker. The call waits for it (up to `SYNC_WAIT_MS`) and answers
         *     200 with the merge; with `Prefer: respond-async`, or past the wait, 202 with the command,
         *     `Location: /v2/commands/{command_id}` and `X-Command-Id`. Concurrent requests to merge the
         *     same source: one merges, the others get 409 (identical requests share one command and
         *     all get its answer).
         */
        post: operations["mergeAccounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/commands/{command_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The state and outcome of a command
         * @description Where a 202 points (merge), and what `X-Command-Id` names (escrow pay/commit/cancel,
         *     invoice pay, token purchase): `state` is `pending` until a worker finishes the command,
         *     then `done` with `result` = the HTTP status and body the synchronous call would have
         *     answered. Any valid client token of the integrator may read its commands; another
         *     integrator's command answers 404. A finished command is kept 30 days, then answers 404.
         */
        get: operations["getCommand"];
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
        /**
         * @description `login` includes every other capability; `payouts` and `transactions` are operator only.
         * @enum {string}
         */
        Capability: "login" | "payouts" | "transactions";
        /**
         * @description `account_close` for publishers; every reason for the operator.
         * @enum {string}
         */
        BlockReason: "account_close" | "compliance" | "merge_account" | "gdpr" | "failed_kyc" | "kyc_application_cancelled" | "flagged_for_full_kyc";
        /** @description A custom note kept with the block (at most 500 characters, no control characters but tab and newline). */
        BlockNote: string;
        BlockRequest: {
            account_id: components["schemas"]["Id"];
            block_capability: components["schemas"]["Capability"];
            block_reason: components["schemas"]["BlockReason"];
            note?: components["schemas"]["BlockNote"];
        };
        LegacyBlockRequest: {
            block_capability?: components["schemas"]["Capability"];
            block_reason?: components["schemas"]["BlockReason"];
            note?: components["schemas"]["BlockNote"];
        };
        Block: {
            block_id: components["schemas"]["Id"];
            account_id: components["schemas"]["Id"];
            capability: components["schemas"]["Capability"];
            /** @enum {string} */
            issuer: "publisher" | "svc";
            reason: components["schemas"]["BlockReason"];
            note: string | null;
            /** @constant */
            status: "active";
            created: components["schemas"]["Timestamp"];
        };
        /** @description Active blocks keyed by capability. */
        Blocks: {
            login?: components["schemas"]["Block"];
            payouts?: components["schemas"]["Block"];
            transactions?: components["schemas"]["Block"];
        };
        BlockResponse: {
            account_id: components["schemas"]["Id"];
            blocks: components["schemas"]["Blocks"];
        };
        MergeRequest: {
            source_account_id: components["schemas"]["Id"];
            destination_account_id: components["schemas"]["Id"];
        };
        Merge: {
            source_account_id: string;
            destination_account_id: string;
            moved: {
                currency: string;
                /** @enum {string} */
                wallet_kind: "standard" | "convertible";
                /** @description Minor units. */
                amount: number;
                from_wallet_id: string;
                to_wallet_id: string;
            }[];
        };
        Command: {
            command_id: string;
            /** @enum {string} */
            kind: "escrow.pay" | "escrow.commit" | "escrow.cancel" | "invoice.pay" | "invoice.confirm" | "invoice.refund" | "account.merge" | "payout.request" | "payout.execute" | "payout.settle" | "payout.reverse" | "token.convert" | "dispute.open" | "dispute.close" | "dispute.notice";
            /** @description The escrow, invoice, payout, token exchange, dispute or (merge) source account the command acts on. */
            target_id: string;
            /** @description Merge: `{destination_account_id}`; a buyer-present invoice pay: `{return_url}`. */
            input: Record<string, never> | null;
            /** @enum {string} */
            state: "pending" | "done";
            /** @description Once done, the HTTP status and body the synchronous call answers. */
            result: null | {
                status: number;
                body: unknown;
            };
            created: components["schemas"]["Timestamp"];
            updated: components["schemas"]["Timestamp"];
        };
        CommandEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["Command"];
        };
        AccountExistsEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Failure";
            message?: unknown;
            codes?: unknown;
            payload: {
                account_id: components["schemas"]["Id"];
                field?: string;
            };
        };
        /** @description Text without control characters. */
        SafeString: string;
        /** @description 1–64 characters, no control characters, no leading or trailing whitespace. */
        Username: string;
        EmailInput: {
            /** Format: email */
            address: string;
            /** @default true */
            requires_verification?: boolean;
        };
        ExternalPlatformId: {
            user_id: string;
        };
        /** @description At least one platform, each with the user's id there. */
        ExternalPlatformsInput: {
            steam?: components["schemas"]["ExternalPlatformId"];
            oculus?: components["schemas"]["ExternalPlatformId"];
            apple?: components["schemas"]["ExternalPlatformId"];
            google?: components["schemas"]["ExternalPlatformId"];
            microsoft?: components["schemas"]["ExternalPlatformId"];
            nintendo?: components["schemas"]["ExternalPlatformId"];
            sony?: components["schemas"]["ExternalPlatformId"];
        };
        ExternalPlatforms: {
            steam?: components["schemas"]["ExternalPlatformId"];
            oculus?: components["schemas"]["ExternalPlatformId"];
            apple?: components["schemas"]["ExternalPlatformId"];
            google?: components["schemas"]["ExternalPlatformId"];
            microsoft?: components["schemas"]["ExternalPlatformId"];
            nintendo?: components["schemas"]["ExternalPlatformId"];
            sony?: components["schemas"]["ExternalPlatformId"];
        };
        /**
         * @description Upper-case ISO 3166-1 alpha-2 code.
         * @enum {string}
         */
        CountryIso: "AD" | "AE" | "AF" | "AG" | "AI" | "AL" | "AM" | "AO" | "AQ" | "AR" | "AS" | "AT" | "AU" | "AW" | "AX" | "AZ" | "BA" | "BB" | "BD" | "BE" | "BF" | "BG" | "BH" | "BI" | "BJ" | "BL" | "BM" | "BN" | "BO" | "BQ" | "BR" | "BS" | "BT" | "BV" | "BW" | "BY" | "BZ" | "CA" | "CC" | "CD" | "CF" | "CG" | "CH" | "CI" | "CK" | "CL" | "CM" | "CN" | "CO" | "CR" | "CU" | "CV" | "CW" | "CX" | "CY" | "CZ" | "DE" | "DJ" | "DK" | "DM" | "DO" | "DZ" | "EC" | "EE" | "EG" | "EH" | "ER" | "ES" | "ET" | "FI" | "FJ" | "FK" | "FM" | "FO" | "FR" | "GA" | "GB" | "GD" | "GE" | "GF" | "GG" | "GH" | "GI" | "GL" | "GM" | "GN" | "GP" | "GQ" | "GR" | "GS" | "GT" | "GU" | "GW" | "GY" | "HK" | "HM" | "HN" | "HR" | "HT" | "HU" | "ID" | "IE" | "IL" | "IM" | "IN" | "IO" | "IQ" | "IR" | "IS" | "IT" | "JE" | "JM" | "JO" | "JP" | "KE" | "KG" | "KH" | "KI" | "KM" | "KN" | "KP" | "KR" | "KW" | "KY" | "KZ" | "LA" | "LB" | "LC" | "LI" | "LK" | "LR" | "LS" | "LT" | "LU" | "LV" | "LY" | "MA" | "MC" | "MD" | "ME" | "MF" | "MG" | "MH" | "MK" | "ML" | "MM" | "MN" | "MO" | "MP" | "MQ" | "MR" | "MS" | "MT" | "MU" | "MV" | "MW" | "MX" | "MY" | "MZ" | "NA" | "NC" | "NE" | "NF" | "NG" | "NI" | "NL" | "NO" | "NP" | "NR" | "NU" | "NZ" | "OM" | "PA" | "PE" | "PF" | "PG" | "PH" | "PK" | "PL" | "PM" | "PN" | "PR" | "PS" | "PT" | "PW" | "PY" | "QA" | "RE" | "RO" | "RS" | "RU" | "RW" | "SA" | "SB" | "SC" | "SD" | "SE" | "SG" | "SH" | "SI" | "SJ" | "SK" | "SL" | "SM" | "SN" | "SO" | "SR" | "SS" | "ST" | "SV" | "SX" | "SY" | "SZ" | "TC" | "TD" | "TF" | "TG" | "TH" | "TJ" | "TK" | "TL" | "TM" | "TN" | "TO" | "TR" | "TT" | "TV" | "TW" | "TZ" | "UA" | "UG" | "UM" | "US" | "UY" | "UZ" | "VA" | "VC" | "VE" | "VG" | "VI" | "VN" | "VU" | "WF" | "WS" | "XK" | "YE" | "YT" | "ZA" | "ZM" | "ZW";
        FullName: components["schemas"]["SafeString"] & unknown;
        AddressLine: components["schemas"]["SafeString"] & unknown;
        City: components["schemas"]["SafeString"] & unknown;
        StateProvince: components["schemas"]["SafeString"] & unknown;
        ZipPostalCode: components["schemas"]["SafeString"] & unknown;
        /**
         * @deprecated
         * @description Older shape: a platform's user id as a top-level key, taken as the same key of
         *     `external_platforms` (`{"steam": {"user_id": "…"}}` is `{"external_platforms":
         *     {"steam": {"user_id": "…"}}}`). Sending a platform both ways → 400
         *     `external_platforms.<platform>` `ALIAS_CONFLICT`.
         */
        PlatformIdAlias: components["schemas"]["ExternalPlatformId"];
        /**
         * @description Exactly one of `email` and `external_platforms`. `state_province` and `country_iso`
         *     must be sent together. The older shape is accepted too: platform ids as top-level keys
         *     (`steam`, `oculus`, … — every key of `external_platforms`) and `country` for
         *     `country_iso`, each taken as the spec's field before the rules above are checked; a
         *     field sent in both forms → 400 naming it (`ALIAS_CONFLICT`).
         */
        RegisterRequest: {
            username: components["schemas"]["Username"];
            email?: components["schemas"]["EmailInput"];
            external_platforms?: components["schemas"]["ExternalPlatformsInput"];
            full_name?: components["schemas"]["FullName"];
            street_address_1?: components["schemas"]["AddressLine"];
            street_address_2?: components["schemas"]["AddressLine"];
            street_address_3?: components["schemas"]["AddressLine"];
            city?: components["schemas"]["City"];
            state_province?: components["schemas"]["StateProvince"];
            country_iso?: components["schemas"]["CountryIso"];
            zip_postal_code?: components["schemas"]["ZipPostalCode"];
            /**
             * @deprecated
             * @description Older name of `country_iso` (taken as it); sending both → 400 `country_iso` `ALIAS_CONFLICT`.
             */
            country?: components["schemas"]["CountryIso"];
            steam?: components["schemas"]["PlatformIdAlias"];
            oculus?: components["schemas"]["PlatformIdAlias"];
            apple?: components["schemas"]["PlatformIdAlias"];
            google?: components["schemas"]["PlatformIdAlias"];
            microsoft?: components["schemas"]["PlatformIdAlias"];
            nintendo?: components["schemas"]["PlatformIdAlias"];
            sony?: components["schemas"]["PlatformIdAlias"];
        };
        /**
         * @description Any of the fields, at least one. `state_province` and `country_iso` must be sent together.
         *     The older shape of registration is accepted here too (top-level platform ids, `country`),
         *     with the same rules.
         */
        UpdateAccountRequest: {
            email?: components["schemas"]["EmailInput"];
            external_platforms?: components["schemas"]["ExternalPlatformsInput"];
            full_name?: components["schemas"]["FullName"];
            street_address_1?: components["schemas"]["AddressLine"];
            street_address_2?: components["schemas"]["AddressLine"];
            street_address_3?: components["schemas"]["AddressLine"];
            city?: components["schemas"]["City"];
            state_province?: components["schemas"]["StateProvince"];
            country_iso?: components["schemas"]["CountryIso"];
            zip_postal_code?: components["schemas"]["ZipPostalCode"];
            /**
             * @deprecated
             * @description Older name of `country_iso` (taken as it); sending both → 400 `country_iso` `ALIAS_CONFLICT`.
             */
            country?: components["schemas"]["CountryIso"];
            steam?: components["schemas"]["PlatformIdAlias"];
            oculus?: components["schemas"]["PlatformIdAlias"];
            apple?: components["schemas"]["PlatformIdAlias"];
            google?: components["schemas"]["PlatformIdAlias"];
            microsoft?: components["schemas"]["PlatformIdAlias"];
            nintendo?: components["schemas"]["PlatformIdAlias"];
            sony?: components["schemas"]["PlatformIdAlias"];
        };
        Email: {
            email_id: components["schemas"]["Id"];
            /** Format: email */
            address: string;
            /** @description Always `["primary"]` (an account has one address). */
            email_types: "primary"[];
            is_verified: boolean;
        };
        /** @description The fields common to the registration and update payloads. */
        AccountDetails: {
            account_id: components["schemas"]["Id"];
            email?: components["schemas"]["Email"];
            external_platforms: components["schemas"]["ExternalPlatforms"];
            full_name?: string;
            street_address_1?: string;
            street_address_2?: string;
            street_address_3?: string;
            city?: string;
            state_province?: string;
            country_iso?: components["schemas"]["CountryIso"];
            zip_postal_code?: string;
        };
        RegistrationPayload: components["schemas"]["AccountDetails"] & {
            username: components["schemas"]["Username"];
        };
        UpdatePayload: components["schemas"]["AccountDetails"];
        Tag: {
            tag_id: components["schemas"]["Id"];
            account_id: string;
            resource_id: string;
            resource_type: string;
            namespace: string;
            tag: string;
            status: string;
            integrator: string;
            created: components["schemas"]["Timestamp"];
            updated: components["schemas"]["Timestamp"];
        };
        Profile: {
            account_id: components["schemas"]["Id"];
            username: string;
            email: string | null;
            /** @description True while the account has any active block. */
            is_blocked: boolean;
            blocked_capabilities: components["schemas"]["Blocks"];
            /** @description Name of the integrator that owns the account. */
            integrator: string;
            tags: components["schemas"]["Tag"][];
            created: components["schemas"]["Timestamp"];
        };
        LegacyProfile: {
            account_id: components["schemas"]["Id"];
            username: string;
            email: string | null;
            is_blocked: boolean;
            integrator: string;
            created: components["schemas"]["Timestamp"];
        };
        TosStatus: {
            signed_tos: boolean;
        };
        TosContent: {
            /** @description Increases with every published version. */
            tos_version: number;
            tos_created: components["schemas"]["Timestamp"];
            content: string;
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
        Id: string;
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
        /**
         * Format: date-time
         * @description ISO 8601, UTC.
         */
        Timestamp: string;
        SuccessEnvelopeNullPayload: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            message?: unknown;
            codes?: unknown;
            payload?: null;
        };
    };
    responses: {
        /** @description The block response (bare, not in the envelope). */
        Blocks: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["BlockResponse"];
            };
        };
        /** @description The earlier-generation block state. */
        LegacyBlockState: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Envelope"] & {
                    /** @constant */
                    status?: "Success";
                    payload?: {
                        is_blocked: boolean;
                    };
                };
            };
        };
        /**
         * @description The caller may not remove this block: `BLOCK_PERMISSION_ERROR`; the message
         *     says why (no can-unblock licence, or a block issued by `svc`). Nothing changed.
         */
        BlockPermission: {
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
        /** @description Accepted; the command as it stands. `Location` is the command to poll. */
        CommandAccepted: {
            headers: {
                Location?: string;
                "X-Command-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["CommandEnvelope"];
            };
        };
        /** @description The account profile. */
        Profile: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Envelope"] & {
                    /** @constant */
                    status?: "Success";
                    payload?: components["schemas"]["Profile"];
                };
            };
        };
        /**
         * @description The username, email address or an external platform user id already belongs to an
         *     account of this integrator. `payload.account_id` is that account; `payload.field` says
         *     which value collided (`username`, `email`, `external_platforms.<platform>`).
         *     Also `IDEMPOTENCY_KEY_IN_USE` while a request with the same Idempotency-Key runs.
         */
        AccountExists: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AccountExistsEnvelope"] | components["schemas"]["IdempotencyKeyInUseEnvelope"];
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
        /** @description The client is not permitted to do this (for example ToS signing not enabled). */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FailureEnvelope"];
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
        /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
        AccountIdPath: components["schemas"]["Id"];
        /** @description `respond-async` (RFC 7240) to get 202 at once instead of waiting for the command. */
        Prefer: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    registerAccount: {
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
                "application/json": components["schemas"]["RegisterRequest"];
            };
        };
        responses: {
            /** @description The new account. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["RegistrationPayload"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["AccountExists"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    searchAccountByUsername: {
        parameters: {
            query: {
                username: components["schemas"]["Username"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["Profile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    getAccountProfile: {
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
            200: components["responses"]["Profile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    updateAccount: {
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
                "application/json": components["schemas"]["UpdateAccountRequest"];
            };
        };
        responses: {
            /** @description The account after the update (the registration fields without `username`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["UpdatePayload"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            /** @description The email or external platform user id belongs to another account, or the platform is already linked with another id. */
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
    getAccountProfileLegacy: {
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
            /** @description The account. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["LegacyProfile"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    getTosStatus: {
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
            /** @description Signature status. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TosStatus"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    signTos: {
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
        requestBody?: never;
        responses: {
            /** @description Signed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SuccessEnvelopeNullPayload"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["AccountNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    unsignTos: {
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
        requestBody?: never;
        responses: {
            /** @description Unsigned. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SuccessEnvelopeNullPayload"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            /** @description `APP_ENV=production`: the operation does not exist (`Allow: GET, POST`). */
            405: {
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
    getCurrentTos: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current ToS version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TosContent"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["ServerError"];
        };
    };
    blockAccount: {
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
                "application/json": components["schemas"]["BlockRequest"];
            };
        };
        responses: {
            200: components["responses"]["Blocks"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    unblockAccount: {
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
                block_capability: components["schemas"]["Capability"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["Blocks"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["BlockPermission"];
            404: components["responses"]["AccountNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    getAccountBlocks: {
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
            200: components["responses"]["Blocks"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    blockAccountLegacy: {
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
        requestBody?: {
            content: {
                "application/json": components["schemas"]["LegacyBlockRequest"];
            };
        };
        responses: {
            200: components["responses"]["LegacyBlockState"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    unblockAccountLegacy: {
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
        requestBody?: never;
        responses: {
            200: components["responses"]["LegacyBlockState"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["BlockPermission"];
            404: components["responses"]["AccountNotFound"];
            409: components["responses"]["IdempotencyKeyInUse"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    mergeAccounts: {
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
                /** @description `respond-async` (RFC 7240) to get 202 at once instead of waiting for the command. */
                Prefer?: components["parameters"]["Prefer"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MergeRequest"];
            };
        };
        responses: {
            /** @description The merge is done. `moved` lists every balance that moved (empty when the source held no tokens). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["Merge"];
                    };
                };
            };
            202: components["responses"]["CommandAccepted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["AccountNotFound"];
            /** @description The merge is refused (`ACCOUNT_MERGE_ERROR`, the message says why), or the Idempotency-Key is in use. */
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
    getCommand: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                command_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The command. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommandEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description No such command for the caller's integrator (`COMMAND_GET_ERROR`). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            500: components["responses"]["ServerError"];
        };
    };
}
