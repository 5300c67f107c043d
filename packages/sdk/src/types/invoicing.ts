// Generated from openapi/invoicing.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.

export interface paths {
    "/v2/escrow": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an escrow (OPEN) */
        post: operations["createEscrow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/escrow/{escrow_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The escrow as it stands */
        get: operations["getEscrow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/escrow/{escrow_id}/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pay an escrow
         * @description Charges every payment method of the escrow invoice, all or nothing, and holds the funds. Success: `ESCROWED`. A failed charge is not an HTTP error: the escrow is `ESCROW-FAILED` and its escrow invoice says why in `failure_reason` (`card_declined`, `insufficient_funds`, or `account_blocked` when the buyer was blocked after creating the escrow); nothing stays charged. Commit and cancel of an `ESCROWED` escrow stay possible whatever blocks its buyer or sellers get, so money is never stuck. An escrow that would pay an account merged into another (a recipient's wallet is that account's) is neither paid nor committed: 409 `ESCROW_STATE_ERROR`, nothing moves (a merge refuses while an unfinished escrow names its source, so only an escrow older than that rule can be in this state; cancel it). Pay again on a paid escrow answers it as it is; on `ESCROW-FAILED`, 409.
         *
         *     Runs as a command on a worker. The call waits for it (up to `SYNC_WAIT_MS`, 10 s by
         *     default) and answers 200; with `Prefer: respond-async`, or past the wait, it answers 202
         *     with the escrow as it stands, `Location` (the escrow to poll) and `X-Command-Id`; the
         *     outcome also arrives as an `escrow-transaction-update` webhook. Concurrent and repeated
         *     requests move money once.
         */
        post: operations["payEscrow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/escrow/{escrow_id}/commit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Commit an escrow
         * @description Only from `ESCROWED`: each line's amount goes to its source wallet (the integrator's default wallet when blank) and each recipient's share on to its destination wallet (for a token currency, the seller's convertible wallet); the rest of a line stays with the integrator. `commit_invoice_id` is set. Commit again answers the escrow as it is; from any other state, 409 `ESCROW_STATE_ERROR` — also when a recipient's account was merged into another (money never lands in a merged account; cancel refunds the buyer instead). An escrow that an open dispute traced disputed value into (a disputed card charge paid it, or the tokens it bought) answers 409 `DISPUTE_OPEN` (payload = the escrow) until the dispute is decided; it may be cancelled.
         *
         *     Runs as a command on a worker. The call waits for it (up to `SYNC_WAIT_MS`, 10 s by
         *     default) and answers 200; with `Prefer: respond-async`, or past the wait, it answers 202
         *     with the escrow as it stands, `Location` (the escrow to poll) and `X-Command-Id`; the
         *     outcome also arrives as an `escrow-transaction-update` webhook. Concurrent and repeated
         *     requests move money once.
         */
        post: operations["commitEscrow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/escrow/{escrow_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel an escrow
         * @description Only from `ESCROWED`: every charged payment method is refunded in full (the buyer sees both the charge and the refund); nothing goes to the sellers. A card part under an open or lost dispute is not refunded (the processor gave it back to the cardholder already): it goes to the integrator's default wallet, which the dispute took it from. What goes back to the buyer's wallets that a dispute traced into the escrow (the tokens a disputed card bought) is disputed value still: under an open dispute it is held in the wallet it returns to (the dispute's `traced` entry becomes `in_wallet` there, with `held`; WON releases it, LOST claws it back); under a LOST dispute it is clawed back at once (`dispute-updated`, the dispute's `unrecovered` less it). `cancel_invoice_id` is set. Cancel again answers the escrow as it is; from any other state, 409 `ESCROW_STATE_ERROR`.
         *
         *     Runs as a command on a worker. The call waits for it (up to `SYNC_WAIT_MS`, 10 s by
         *     default) and answers 200; with `Prefer: respond-async`, or past the wait, it answers 202
         *     with the escrow as it stands, `Location` (the escrow to poll) and `X-Command-Id`; the
         *     outcome also arrives as an `escrow-transaction-update` webhook. Concurrent and repeated
         *     requests move money once.
         */
        post: operations["cancelEscrow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/invoice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a standard (non-escrow) invoice (OPEN)
         * @description The same body and money rules as `POST /v2/escrow`. Paying it (`POST
         *     /v2/invoice/{invoice_id}/pay`) charges the payment methods and settles the line items
         *     straight away: each share to its destination wallet, the rest to the integrator.
         */
        post: operations["createInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/invoice/{invoice_id}/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pay a standard or an authorized invoice
         * @description Charges every payment method, all or nothing, and settles the line items. Answers 200
         *     with the invoice `SUCCESS`, or `FAILED` with `failure_reason` (not an HTTP error; nothing
         *     charged). Paying a paid invoice answers it as it is; a failed invoice, an escrow's
         *     invoice (paid through its escrow), or one that would pay an account merged into another,
         *     answers 409 `INVOICE_STATE_ERROR`. Runs as a command
         *     exactly like escrow pay (`SYNC_WAIT_MS`, `Prefer: respond-async` → 202 with `Location`).
         *     Emits `invoice-completed`.
         *
         *     **Authorized invoices** (`POST /v2/authorize/invoice`) are paid here by their buyer, with
         *     the `password_token` (or by the integrator with a client token). The body names the
         *     payment methods the buyer chose, under the rules of `POST /v2/escrow` (400 naming the
         *     field). Without them, an invoice in the integrator's token currency is paid by the
         *     buyer's token wallets (standard before convertible, as a purchase created without
         *     methods); in any other currency the answer is `payment_methods: REQUIRED`. An
         *     authorized escrow's methods are chosen here, never by `POST /v2/escrow/{escrow_id}/pay`
         *     (409 until they are). The first pay that names them fixes
         *     them: a retry naming the same ones (or none) runs on, one naming others answers 409
         *     `INVOICE_STATE_ERROR`. An authorized escrow invoice is paid by its escrow's pay: the
         *     escrow becomes `ESCROWED` (or `ESCROW-FAILED`), the answer is the invoice, and the
         *     integrator commits or cancels the escrow as any other. A password token reaches only the
         *     invoices authorized for its own account (404 for any other). A standard invoice's
         *     payment methods were fixed at creation: naming them here → 400 `payment_methods:
         *     NOT_ALLOWED`.
         *
         *     **Buyer present (3-D Secure).** An API pay is off-session: a card that needs its
         *     holder's authentication fails the pay (`FAILED`, `failure_reason`
         *     `authentication_required`). The buyer's own pay (a password token, as the hosted
         *     checkout makes it) may name `return_url`: under the Stripe card processor such a card
         *     then sends the buyer to their bank instead — the pay answers **202** with `Location`
         *     (the invoice to poll) and the invoice `PROCESSING` with `next_action_url`, the page to
         *     send the buyer to, which returns them to `return_url`. Nothing moves meanwhile (no
         *     wallet part is held). Stripe's webhook (`payment_intent.amount_capturable_updated`,
         *     `.succeeded`, `.payment_failed`, `.canceled`, to `POST /hooks/stripe`) then settles the
         *     invoice once, from the PaymentIntent as Stripe has it: authenticated → the whole pay is
         *     decided as any pay (`SUCCESS` with the same postings, or `FAILED` when a wallet part no
         *     longer covers it); failed or abandoned → `FAILED`, `failure_reason`
         *     `authentication_failed`, the card hold released. A pay on a `PROCESSING` invoice
         *     answers 202 with it as it stands. Under the sandbox processor `return_url` changes
         *     nothing. An authorized escrow invoice's pay is always off-session.
         */
        post: operations["payInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/token/purchase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Buy virtual tokens
         * @description Charges a USD payment method (card, POBO or USD wallet; a payout-only PayPal method →
         *     400 `payment_method_id` `PAYOUT_ONLY`) of an account of the integrator and credits
         *     standard tokens to `destination_account_id` (default: the payment method's
         *     account). `amount` is in `currency`: the integrator's token currency (tokens wanted) or
         *     USD (cents to spend), converted at the integrator's tokens-per-USD rate; the conversion
         *     must be exact, in whole tokens and whole cents, never rounded (`amount: NOT_EXACT`; it is
         *     computed in exact integers at every size), and neither side may pass 9007199254740991
         *     (`amount: TOO_LARGE`). The USD goes to the integrator's default wallet;
         *     the tokens come from its token issuance account. Answers 201 with the `token_purchase`
         *     invoice, `SUCCESS` or `FAILED` with `failure_reason` (nothing charged). Runs as a command
         *     (`SYNC_WAIT_MS`, `Prefer: respond-async` → 202). Emits `invoice-completed`.
         */
        post: operations["purchaseTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/token/convert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Quote a conversion of convertible tokens to USD
         * @description Quotes a token exchange: `amount` convertible tokens of `account_id` in `currency` (the
         *     integrator's token currency; any other → 400 `currency: UNSUPPORTED_CURRENCY`) for USD at
         *     the integrator's tokens-per-USD rate. The fiat amount must be a whole number of cents
         *     (`amount: NOT_EXACT`, as token purchases, exact at every size) no larger than
         *     9007199254740991 (`amount: TOO_LARGE`); the fee is `ceil(fiat_amount × fee_bps /
         *     10000)` cents, in exact integers (the integrator's `--conversion-fee-bps`, default 0),
         *     kept by the integrator. Answers 201 with the exchange `OPEN`, to be executed with `POST
         *     /v2/token/convert/{token_exchange_id}` before `expires_at` (`TOKEN_EXCHANGE_TTL_SECONDS`
         *     after it was made, default 15 minutes, on the test clock in staging). Nothing moves or is
         *     held yet. Refused, nothing written: the account's KYC check not `ACCEPT` (409
         *     `KYC_REQUIRED`), an open dispute of one of the account's card charges (409
         *     `DISPUTE_OPEN`), a `login` or `transactions` block (403), a convertible wallet holding
         *     fewer tokens (400 `amount: INSUFFICIENT_BALANCE`). Also with the account's own user
         *     password token.
         */
        post: operations["convertTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/token/convert/{token_exchange_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A token exchange
         * @description The exchange as it stands (what a 202 of its execution points to). The scope is
         *     `write_tokens`, the one that made and executes it. Also with the account's own user
         *     password token.
         */
        get: operations["getTokenExchange"];
        put?: never;
        /**
         * Execute a token exchange
         * @description Executes an `OPEN` exchange in one posting: the tokens go from the account's convertible
         *     wallet back to the integrator's token issuance (burned), and `fiat_amount − fee_amount`
         *     from the integrator's USD wallet (its default wallet, which token purchases pay) to the
         *     account's USD wallet; the fee stays with the integrator. Answers 200 with the exchange
         *     `EXECUTED` and emits `token-exchange-completed`. Runs as a command (`SYNC_WAIT_MS`,
         *     `Prefer: respond-async` → 202 with `Location` to poll); concurrent requests execute it
         *     once. Executing an `EXECUTED` exchange answers it as it is. Refused, nothing moved (409
         *     payload: the exchange): past `expires_at` → `EXCHANGE_EXPIRED` (it becomes `EXPIRED`); the
         *     integrator's USD wallet cannot cover it → `CONVERSION_REJECTED` (it stays `OPEN` and may
         *     be executed again until it expires); a `REVERSED` one → `EXCHANGE_STATE_ERROR`. Checked
         *     again when it runs: KYC `ACCEPT` (409 `KYC_REQUIRED`), no open dispute of the account's
         *     card charges (409 `DISPUTE_OPEN`), blocks (403), the convertible
         *     balance (400 `amount: INSUFFICIENT_BALANCE`).
         */
        post: operations["executeTokenExchange"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/authorize/invoice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Authorize an invoice for its buyer to pay (hosted checkout or SDK)
         * @description The integrator's server makes an invoice — with `is_escrow`, an escrow (OPEN)
         *     and its escrow invoice — whose buyer then chooses how to pay: in the hosted checkout
         *     (`invoice_mechanism: widget`) or in the integrator's app through the SDK (`api`). The
         *     buyer pays it with `POST /v2/invoice/{authorized_invoice_id}/pay`, naming the payment
         *     methods; an escrow is then committed or cancelled by the integrator as any other.
         *     Holdfast offers only these two mechanisms: any other value → 400 `invoice_mechanism`
         *     `INVALID_VALUE`, the message naming the allowed values
         *     (`invoice_mechanism must be one of: widget, api.`).
         *
         *     Every money rule of `POST /v2/escrow` is checked now except the payment methods' (400
         *     naming the field). A purchase in the integrator's token currency that the buyer's token
         *     wallets (standard and convertible together) cannot cover is refused: 400 `account_id:
         *     INSUFFICIENT_BALANCE`. A buyer blocked from transactions or from logging in gets 403;
         *     a refusal leaves nothing behind.
         *
         *     200, `Cache-Control: no-store`. With `widget` the payload holds `nonce_auth_id` (the
         *     single-use session nonce, valid 24 h), `authorized_invoice_id` and `redirect`:
         *     `{web_url}/ui/appauth/<nonce>?authorized_invoice_id=<id>`, the hosted flow. With `api` it
         *     holds `authorized_invoice_id` and `password_token`, a user password token for the buyer
         *     (as `POST /authorize/user` with `return_token` gives: hand it to the SDK, never the
         *     client credentials). With `is_escrow`, `escrow_id` names the escrow too.
         */
        post: operations["authorizeInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{account_id}/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's invoices, newest first (transaction history)
         * @description Every invoice of the account: its purchases' and escrows' invoices, their commit and
         *     cancel invoices, and token purchases — newest first, `limit` at a time (default 20, at
         *     most 100). `has_more` says whether older ones follow; pass the last one's `invoice_id`
         *     as `starting_after` to get them. The account's own user password token may list them
         *     (the SDK's transaction history); another account's answers 404.
         */
        get: operations["listInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/invoice/{invoice_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An invoice (escrow, commit or cancel phase)
         * @description A user password token reads the invoices of its own account only (404 for any other).
         */
        get: operations["getInvoice"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund everything a purchase invoice has not had back yet
         * @description A full refund of a `SUCCESS` purchase — a standard or authorized invoice (`user_purchase`,
         *     `user_purchase_virtual`), a token purchase (`token_purchase`), or a `COMMITTED` escrow's
         *     invoice (its `escrow_invoice_id`): each payment method that paid gets back exactly what it
         *     has not had back yet (a wallet is credited, a card refunded), and each line item what it
         *     has left. The split never rounds: the lines are filled in the invoice's order from the
         *     methods in the purchase's order, whole minor units each, and the parts add up.
         *
         *     The money comes from the integrator's default wallet in the invoice's currency — also for
         *     `user_to_user` lines: the seller keeps its proceeds. In the integrator's token currency its
         *     token wallet pays what it holds and token issuance the rest, so such a refund is never
         *     rejected. A token purchase's refund also takes its tokens back from the buyer's standard
         *     token wallet, rounded up, counted on the cents refunded in all (a full refund takes back
         *     exactly what was issued); only what the unspent tokens cover can be refunded.
         *
         *     Runs as an `invoice.refund` command (`SYNC_WAIT_MS`, `Prefer: respond-async` → 202 with
         *     `Location: /v2/invoice/{invoice_id}/refunds`) and answers 200 with the invoice's refund
         *     summary. The refund is an invoice of its own (`user_refund`, `user_refund_virtual`;
         *     `metadata.refunded_invoice_id` names the purchase): `SUCCESS` when every part went
         *     through; `FAILED` with `failure_reason: refund_declined` when a method's refund failed
         *     (the sandbox card `4000000000005126`: that part moves nothing and stays refundable, the
         *     parts listed `succeeded` did move; the answer is still 200, status `REFUND-FAILED`); or
         *     `FAILED` with the processor's reason when a card processor refuses a card part
         *     (`refund_declined`; `provider_idempotency_conflict` when it refused the request's
         *     idempotency key — an operator looks the key up; the part's money goes back to the
         *     integrator's wallet in a reversing posting); `PROCESSING` while a card processor is
         *     refunding (202 meanwhile); or
         *     `FAILED` with `integrator_insufficient_funds` when the integrator's wallet cannot cover a
         *     fiat refund: that one is recorded as `REFUND-REJECTED`, nothing moves, and the answer is
         *     409 `REFUND_REJECTED` with the summary as payload. Nothing left to refund → 409
         *     `NOTHING_TO_REFUND`. A card part that is disputed (an open or lost dispute: the
         *     processor gave it back to the cardholder) is not refunded again: it is left out of what
         *     is refundable, and a refund that finds nothing else left answers 409 `DISPUTED`. Not refunded (409 `REFUND_NOT_ALLOWED`): an `ESCROWED` escrow
         *     (cancel it instead), a cancelled one (its cancel refunded the buyer), an invoice that is
         *     not `SUCCESS`, a refund or an escrow's commit or cancel invoice, and the purchase of a buyer (or,
         *     for tokens, a receiver) merged into another account — money never lands in a merged
         *     account. A blocked buyer is refunded (money is returned, not spent). Concurrent refunds of
         *     one invoice run one after the other under a lock on it: the money goes back once; the
         *     others answer the summary or 409 `NOTHING_TO_REFUND`. Emits `refund-completed` and
         *     `invoice-completed` (the refund invoice).
         */
        post: operations["refundInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/line-item/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund an amount of one line item
         * @description A full or partial refund of one line of a `SUCCESS` purchase (the line's `line_item_id`
         *     on the purchase or escrow invoice): `amount` goes back to the `payment_methods` named, in
         *     the order given, each taking at most what it paid and has not had back yet. Each id must
         *     be a method that paid the invoice, named once. Refunds of a line never add up to more
         *     than the line cost, nor a method's to more than it paid, across any number of partial
         *     refunds.
         *
         *     Checked at once, and again under the purchase's lock when the command runs: more than
         *     the line has left → 400 naming `amount` (`EXCEEDS_REFUNDABLE`, the message says how much
         *     is left); methods that together have less left than `amount` → 400 naming
         *     `payment_methods` (`EXCEEDS_REFUNDABLE`); a method that did not pay the invoice or is
         *     named twice → 400 naming `payment_methods.<i>` (`NOT_CHARGED`, `DUPLICATE`); a line with
         *     nothing left → 409 `NOTHING_TO_REFUND`; methods named that are all disputed (nothing left
         *     of them but what their disputes took) → 409 `DISPUTED`; a line on no purchase of the caller's → 404
         *     `LINE_ITEM_NOT_FOUND`. Otherwise as `POST /v2/refund`: where the money comes from, the
         *     refund invoice and its states, `REFUND_REJECTED`, `REFUND_NOT_ALLOWED`, the events, and
         *     the 200 refund summary (the refund lists `line_item_id`). Identical requests (same line,
         *     amount, methods, reason, sub-reason and note) in flight at once share one command and
         *     refund once; different partial refunds asked at once all run, one after the other,
         *     within what is left. A request made after an identical one finished is a new refund:
         *     send an `Idempotency-Key` to make a retry safe.
         */
        post: operations["refundLineItem"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/invoice/{invoice_id}/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The refund summary of a purchase invoice
         * @description What the invoice has had back (`refunded`) and may still have back (`refundable`), per
         *     currency, and its refunds oldest first, each `REFUND-SUCCESS`, `REFUND-PROCESSING`,
         *     `REFUND-FAILED` or `REFUND-REJECTED` (`status` lists only those; the totals stay whole).
         *     `line_item_id` is null for a full refund. Another integrator's invoice → 404.
         *
         *     On a real card processor (Stripe) a refund is `REFUND-PROCESSING` while its card parts
         *     are being refunded: their money has left the integrator's wallet and counts as refunded.
         *     A card part the processor refuses, or whose Refund fails later (Stripe's `refund.failed`),
         *     becomes `failed` and its money goes back to the integrator's wallet in one reversing
         *     posting; the refund then shows `REFUND-FAILED` and the part is refundable again.
         */
        get: operations["getInvoiceRefunds"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/escrow/reference/{reference_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The integrator's escrows with a reference (reconciliation)
         * @description The caller's escrows whose `reference_id` (set at creation) is the one given — "which
         *     escrows belong to my order 1234?" — optionally of one `status`, ordered by `sortField`
         *     (`created`, the default, or `updated`) in `sort` order (`desc`, newest first, by default;
         *     ties by id), `limit` at a time (default 20, at most 100) from `offset`. `total` counts
         *     every match. Each escrow is shown as `getEscrow` shows it. Another integrator's escrows
         *     are never counted: a reference only it used answers `{total: 0}`.
         */
        get: operations["getEscrowsByReference"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/escrow/by_invoice/{invoice_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The escrow an invoice belongs to (reconciliation)
         * @description The escrow of any of its invoices — its escrow invoice (`escrow_invoice_id`), its commit
         *     invoice or its cancel invoice — as `getEscrow` shows it. An invoice the caller cannot
         *     see answers 404 `INVOICE_GET_ERROR`; one of its invoices that belongs to no escrow (a
         *     standard invoice, a token purchase) answers 404 `ESCROW_GET_ERROR`.
         */
        get: operations["getEscrowByInvoice"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/invoice/account/{account_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's invoices, filtered and counted (reconciliation)
         * @description The account's invoices (as `listInvoices` lists them) of the `states` and
         *     `invoice_types` asked for (comma-separated; any when absent), ordered by `sort_field`
         *     (`created`, the default, or `updated`) in `sort` order (`desc`, newest first, by default;
         *     ties by id), `limit` at a time (default 20, at most 100) from `offset`; `total` counts
         *     every match. The account's own user password token may list them; another account's
         *     answers 404. `GET /v1/{account_id}/invoices` (its `starting_after` cursor) is unchanged.
         */
        get: operations["listAccountInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{account_id}/statement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An account's statement (every posting on its wallets)
         * @description Each ledger entry on the account's wallets — "where did my money go" — with what moved
         *     it (`source_type` `escrow`, `invoice` or `merge`; the `escrow_id`, the `invoice_id` of
         *     the escrow's phase or of the invoice, and the `phase`), the signed `amount` (+ into the
         *     wallet) and `balance_after`: the wallet's balance right after the entry, recorded by the
         *     database when the entry was applied. Entries come in the order balances changed
         *     (`sort` `desc`, newest first, by default), which is not always the order of
         *     `entry_id`; entries one posting statement applied to one wallet together share that
         *     moment and run in `entry_id` order. `from` (inclusive) and `to` (exclusive) bound the
         *     postings' time; `limit` (default 20, at most 100) and `offset` page; `total` counts
         *     every match. Entries written before balances were recorded show `balance_after: null`.
         *     The account's own user password token may read it; another account's answers 404.
         */
        get: operations["getAccountStatement"];
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
        /** @description Minor units (cents for USD). */
        Amount: number;
        Currency: string;
        Text100: string;
        Description: string;
        /** @description Any JSON object, at most 8 KiB serialised (`TOO_LARGE`). `null` is taken as absent. */
        Metadata: {
            [key: string]: unknown;
        } | null;
        Recipient: {
            amount: components["schemas"]["Amount"];
            currency: components["schemas"]["Currency"];
            /** @description Where the line's share lands before it moves on to `destination_wallet_id`; blank or absent means the integrator's default wallet. An unknown wallet → 400 `NOT_FOUND`; the recipient's own destination → 400 `SAME_AS_DESTINATION`; the wallet of one of the buyer's payment methods → 400 `BUYER_WALLET` (either would move nothing). */
            source_wallet_id?: string;
            /** @description A seller's wallet in the purchase's currency (`provider_data.wallet_id` of one of its `wallet` payment methods). An unknown wallet, another integrator's, or one of the integrator's own wallets → 400 `NOT_FOUND`. In a token currency the share lands in the seller's convertible wallet. */
            destination_wallet_id: components["schemas"]["Id"];
        };
        LineItem: {
            amount: components["schemas"]["Amount"];
            currency: components["schemas"]["Currency"];
            /** @enum {string} */
            transaction_type: "user_to_user" | "user_to_integrator";
            product_sku?: components["schemas"]["Text100"];
            description?: components["schemas"]["Description"];
            reference_type?: components["schemas"]["Text100"];
            reference_id?: components["schemas"]["Text100"];
            metadata?: components["schemas"]["Metadata"];
            recipients?: components["schemas"]["Recipient"][];
        };
        PaymentMethodShare: {
            payment_method_id: components["schemas"]["Id"];
            /** @description Minor units; 0 (or omitted) takes the remainder. */
            amount?: number;
        };
        CreateEscrowRequest: {
            account_id: components["schemas"]["Id"];
            reference_type?: components["schemas"]["Text100"];
            reference_id?: components["schemas"]["Text100"];
            description?: components["schemas"]["Description"];
            metadata?: components["schemas"]["Metadata"];
            /** @description Required in USD; may be omitted in the integrator's token currency (the buyer's token wallets pay). */
            payment_methods?: components["schemas"]["PaymentMethodShare"][];
            line_items: components["schemas"]["LineItem"][];
        };
        Escrow: {
            id: components["schemas"]["Id"];
            account_id: components["schemas"]["Id"];
            escrow_invoice_id: components["schemas"]["Id"];
            /** @description Empty until committed. */
            commit_invoice_id: string;
            /** @description Empty until cancelled. */
            cancel_invoice_id: string;
            /** @enum {string} */
            status: "OPEN" | "ESCROWED" | "ESCROW-FAILED" | "COMMITTED" | "CANCELLED";
            /** @description Name of the integrator; absent in the create response. */
            integrator?: string;
            metadata: Record<string, never>;
            created: components["schemas"]["Timestamp"];
            updated: components["schemas"]["Timestamp"];
        };
        InvoiceEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["Invoice"];
        };
        /**
         * @description An exchange of convertible tokens for USD. `status`: `OPEN` (quoted), `EXECUTED` (the
         *     money moved), `EXPIRED` (executed after `expires_at`: nothing moved), `REVERSED` (a payout
         *     that took its money was reversed: the money and tokens went back).
         */
        TokenExchange: {
            token_exchange_id: string;
            account_id: string;
            /** @enum {string} */
            status: "OPEN" | "EXECUTED" | "EXPIRED" | "REVERSED";
            /** @description Convertible tokens exchanged. */
            token_amount: number;
            token_currency: string;
            /** @description What the tokens are worth, in cents. */
            fiat_amount: number;
            /** @constant */
            fiat_currency: "USD";
            /** @description The integrator's fee, in cents: the account receives `fiat_amount − fee_amount`. */
            fee_amount: number;
            expires_at: components["schemas"]["Timestamp"];
            created: components["schemas"]["Timestamp"];
            updated: components["schemas"]["Timestamp"];
        };
        TokenExchangeEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["TokenExchange"];
        };
        RefundSummary: {
            invoice_id: string;
            is_fully_refunded: boolean;
            refunded: {
                [key: string]: number;
            };
            refundable: {
                [key: string]: number;
            };
            refunds: {
                refund_invoice_id: string;
                /** @enum {string} */
                status: "REFUND-SUCCESS" | "REFUND-PROCESSING" | "REFUND-FAILED" | "REFUND-REJECTED";
                line_item_id: string | null;
                amount: number;
                currency: string;
                payment_methods: {
                    payment_method_id: string;
                    amount: number;
                    /**
                     * @description Whether this method's part went through. `processing`: a card processor is
                     *     refunding it (its money is posted and counts as refunded). `failed`: nothing
                     *     reached the method — refused, or a card Refund that failed later, whose money
                     *     a reversing posting gave back to the integrator's wallet — and it stays
                     *     refundable.
                     * @enum {string}
                     */
                    status: "succeeded" | "processing" | "failed";
                }[];
                reason: string;
                sub_reason: string;
                note: string;
                failure_reason: string;
                /** Format: date-time */
                created: string;
            }[];
        };
        RefundSummaryEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["RefundSummary"];
        };
        EscrowEnvelope: components["schemas"]["Envelope"] & {
            /** @constant */
            status?: "Success";
            payload?: components["schemas"]["Escrow"] & unknown;
        };
        StatementEntry: {
            /** @description The ledger entry. */
            entry_id: string;
            posted: components["schemas"]["Timestamp"];
            /** @description `provider_data.wallet_id` of the wallet payment method. */
            wallet_id: string;
            /** @enum {string} */
            wallet_type: "fiat" | "standard" | "convertible";
            currency: components["schemas"]["Currency"];
            /** @description Minor units; positive into the wallet, negative out of it. */
            amount: number;
            /** @description Like `USD -1.50`. */
            display_amount: string;
            /** @description The wallet's balance right after this entry; null for entries written before it was recorded. */
            balance_after: number | null;
            /** @description Empty when `balance_after` is null. */
            balance_after_display: string;
            /** @enum {string} */
            source_type: "escrow" | "invoice" | "merge" | "other";
            /** @description Empty unless an escrow phase moved the money. */
            escrow_id: string;
            /** @description The invoice behind it: the escrow phase's invoice, the invoice paid, or the refund invoice; empty for a merge. */
            invoice_id: string;
            /** @description `pay`, `commit`, `cancel`, `issue` (tokens issued), `refund` (a refund gave money back), `tokens` (tokens taken back by the refund of a token purchase), `merge`. */
            phase: string;
            description: string;
        };
        Money: {
            total_amount: number;
            currency: components["schemas"]["Currency"];
            /** @description Like `USD 1.55`. */
            display_amount: string;
        };
        Invoice: {
            /**
             * @description Only on `GET /v2/invoice/{invoice_id}` of a purchase invoice that was disputed: its disputes (chargebacks
             *     of its card charges, newest last) and how much they hold back. `disputed` is what open
             *     and lost disputes took (left out of what may be refunded); `open` how many are undecided.
             */
            disputes?: {
                disputes: {
                    dispute_id: string;
                    payment_method_id: string;
                    amount: number;
                    currency: string;
                    /** @enum {string} */
                    status: "NEEDS_RESPONSE" | "UNDER_REVIEW" | "WON" | "LOST";
                }[];
                disputed: number;
                open: number;
            };
            invoice_id: components["schemas"]["Id"];
            account_id: components["schemas"]["Id"];
            /** @enum {string} */
            invoice_type: "user_purchase" | "user_purchase_escrow" | "user_purchase_commit_escrow" | "user_purchase_refund_escrow" | "token_purchase" | "user_purchase_virtual" | "user_purchase_escrow_virtual" | "user_purchase_commit_escrow_virtual" | "user_purchase_refund_escrow_virtual" | "user_refund" | "user_refund_virtual";
            reference_type: string;
            reference_id: string;
            /** @enum {string} */
            state: "OPEN" | "PROCESSING" | "SUCCESS" | "FAILED" | "CANCELED";
            description: string;
            metadata: Record<string, never>;
            summary: components["schemas"]["Money"];
            /** @description Why a payment failed (`card_declined`, `insufficient_funds`, `account_blocked`, `authentication_required`, `authentication_failed`…); empty otherwise. */
            failure_reason: string;
            /**
             * @description Only while `PROCESSING` because a buyer-present card pay awaits 3-D Secure: the
             *     provider's page to send the buyer to (Stripe's `next_action.redirect_to_url.url`).
             *     Absent otherwise.
             */
            next_action_url?: string;
            created: components["schemas"]["Timestamp"];
            updated: components["schemas"]["Timestamp"];
            payment_methods: {
                [key: string]: {
                    payment_method_id: string;
                    authorized_amount: number;
                    currency: string;
                    display_amount: string;
                    subitems: unknown[];
                };
            };
            line_items: {
                [key: string]: {
                    line_item_id: string;
                    product_sku: string;
                    amount: number;
                    currency: string;
                    display_amount: string;
                    reference_type: string;
                    reference_id: string;
                    /** @enum {string} */
                    transaction_type: "user_to_user" | "user_to_integrator";
                    description: string;
                    metadata: Record<string, never>;
                    subitems: {
                        amount: number;
                        currency: string;
                        display_amount: string;
                        /** @description Empty for the integrator's default wallet. */
                        source_wallet_id: string;
                        destination_wallet_id: string;
                    }[];
                };
            };
            subitems: unknown[];
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
        UserToken: {
            access_token: string;
            /** @constant */
            token_type: "Bearer";
            refresh_token: string;
            expiry: components["schemas"]["Timestamp"];
        };
    };
    responses: {
        /** @description No such escrow for the caller's integrator (`ESCROW_GET_ERROR`). */
        EscrowNotFound: {
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
        /** @description No such invoice for the caller's integrator (`INVOICE_GET_ERROR`). */
        InvoiceNotFound: {
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
        /** @description No such token exchange for the caller's integrator (or its user token's account) (`TOKEN_EXCHANGE_GET_ERROR`). */
        TokenExchangeNotFound: {
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
    };
    parameters: {
        /** @description `desc` (the default): newest first; `asc`: oldest first. */
        Sort: "asc" | "desc";
        Limit: number;
        /** @description How many matches to skip (at most 10000; narrow the query to go further). */
        Offset: number;
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
        /** @description `respond-async` (RFC 7240) to get 202 at once instead of waiting for the command. */
        Prefer: string;
        /** @description An account id. A value that cannot be an id (malformed percent-encoding included) answers 404 like an unknown one. */
        AccountIdPath: components["schemas"]["Id"];
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createEscrow: {
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
                "application/json": components["schemas"]["CreateEscrowRequest"];
            };
        };
        responses: {
            /** @description The new escrow, `OPEN`, with its escrow invoice. Unlike the escrow read by `getEscrow`, it has no `integrator`. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["Escrow"];
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
    getEscrow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                escrow_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The escrow. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["Escrow"] & unknown;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["EscrowNotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    payEscrow: {
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
                /** @description `respond-async` to get 202 at once. */
                Prefer?: string;
            };
            path: {
                escrow_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The escrow, ESCROWED or ESCROW-FAILED. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EscrowEnvelope"];
                };
            };
            /** @description Accepted; the escrow as it stands. `Location` is the escrow to poll. */
            202: {
                headers: {
                    Location?: string;
                    "X-Command-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EscrowEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["EscrowNotFound"];
            /** @description The escrow's state does not allow this (`ESCROW_STATE_ERROR`, payload = the escrow), or the Idempotency-Key is in use. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    commitEscrow: {
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
                /** @description `respond-async` to get 202 at once. */
                Prefer?: string;
            };
            path: {
                escrow_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The escrow, COMMITTED. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EscrowEnvelope"];
                };
            };
            /** @description Accepted; the escrow as it stands. `Location` is the escrow to poll. */
            202: {
                headers: {
                    Location?: string;
                    "X-Command-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EscrowEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["EscrowNotFound"];
            /** @description The escrow's state does not allow this (`ESCROW_STATE_ERROR`, payload = the escrow), an open dispute holds it (`DISPUTE_OPEN`, payload = the escrow), or the Idempotency-Key is in use. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    cancelEscrow: {
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
                /** @description `respond-async` to get 202 at once. */
                Prefer?: string;
            };
            path: {
                escrow_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The escrow, CANCELLED. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EscrowEnvelope"];
                };
            };
            /** @description Accepted; the escrow as it stands. `Location` is the escrow to poll. */
            202: {
                headers: {
                    Location?: string;
                    "X-Command-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EscrowEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["EscrowNotFound"];
            /** @description The escrow's state does not allow this (`ESCROW_STATE_ERROR`, payload = the escrow), or the Idempotency-Key is in use. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["ServerError"];
        };
    };
    createInvoice: {
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
                "application/json": components["schemas"]["CreateEscrowRequest"];
            };
        };
        responses: {
            /** @description The new invoice, `OPEN` (`invoice_type` `user_purchase`, or `user_purchase_virtual` for a token currency). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceEnvelope"];
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
    payInvoice: {
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
                Prefer?: string;
            };
            path: {
                invoice_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        /**
         * @description Optional: no body, `{}` and the JSON `null` (as the reference service's SDK sends it)
         *     are alike.
         */
        requestBody?: {
            content: {
                "application/json": {
                    payment_methods?: components["schemas"]["PaymentMethodShare"][];
                    /**
                     * @description The buyer is present (a password token only; a client token → 400
                     *     `return_url: NOT_ALLOWED`): where their bank's 3-D Secure page sends them
                     *     back. A hosted page (`PUBLIC_URL`'s origin) or a host `ALLOWED_REDIRECT_PATTERNS`
                     *     allows (https; http only for localhost), else 400 `REDIRECT_NOT_ALLOWED`.
                     */
                    return_url?: string;
                };
            };
        };
        responses: {
            /** @description The invoice, SUCCESS or FAILED. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceEnvelope"];
                };
            };
            /**
             * @description Accepted; the invoice as it stands. `Location` is the invoice to poll. Also the answer
             *     of a buyer-present pay waiting on the buyer's bank: the invoice `PROCESSING` with
             *     `next_action_url` (then `X-Command-Id` names the finished pay command).
             */
            202: {
                headers: {
                    Location?: string;
                    "X-Command-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["InvoiceNotFound"];
            /** @description `INVOICE_STATE_ERROR` (payload = the invoice), or the Idempotency-Key is in use. */
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
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    purchaseTokens: {
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
                Prefer?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    payment_method_id: components["schemas"]["Id"];
                    amount: components["schemas"]["Amount"];
                    currency: components["schemas"]["Currency"];
                    destination_account_id?: components["schemas"]["Id"];
                };
            };
        };
        responses: {
            /** @description The token purchase invoice, SUCCESS or FAILED. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceEnvelope"];
                };
            };
            /** @description Accepted; the invoice as it stands. */
            202: {
                headers: {
                    Location?: string;
                    "X-Command-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceEnvelope"];
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
    convertTokens: {
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
                 *       "account_id": "acct_01JDW7Q3V9K2M4N6P8R0S2T4V6",
                 *       "amount": 500,
                 *       "currency": "GEM"
                 *     }
                 */
                "application/json": {
                    account_id: components["schemas"]["Id"];
                    amount: components["schemas"]["Amount"];
                    currency: components["schemas"]["Currency"];
                };
            };
        };
        responses: {
            /** @description The exchange, OPEN. */
            201: {
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
                     *         "token_exchange_id": "tex_01JDW7Q3V9K2M4N6P8R0S2T4V6",
                     *         "account_id": "acct_01JDW7Q3V9K2M4N6P8R0S2T4V6",
                     *         "status": "OPEN",
                     *         "token_amount": 500,
                     *         "token_currency": "GEM",
                     *         "fiat_amount": 200,
                     *         "fiat_currency": "USD",
                     *         "fee_amount": 6,
                     *         "expires_at": "2026-11-27T10:15:00.000Z",
                     *         "created": "2026-11-27T10:00:00.000Z",
                     *         "updated": "2026-11-27T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TokenExchangeEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["AccountNotFound"];
            /** @description `KYC_REQUIRED`, or the Idempotency-Key is in use. */
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
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    getTokenExchange: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token_exchange_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The exchange. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenExchangeEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["TokenExchangeNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    executeTokenExchange: {
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
            path: {
                token_exchange_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The exchange, EXECUTED. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenExchangeEnvelope"];
                };
            };
            /** @description Accepted; the exchange as it stands. */
            202: {
                headers: {
                    Location?: string;
                    "X-Command-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenExchangeEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["AccountBlocked"];
            404: components["responses"]["TokenExchangeNotFound"];
            /** @description `EXCHANGE_EXPIRED`, `CONVERSION_REJECTED`, `EXCHANGE_STATE_ERROR` (payload = the exchange), `KYC_REQUIRED`, or the Idempotency-Key is in use. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    authorizeInvoice: {
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
                "application/json": {
                    account_id: components["schemas"]["Id"];
                    /** @default false */
                    is_escrow?: boolean;
                    /** @enum {string} */
                    invoice_mechanism: "widget" | "api";
                    reference_type?: components["schemas"]["Text100"];
                    reference_id?: components["schemas"]["Text100"];
                    description?: components["schemas"]["Description"];
                    metadata?: components["schemas"]["Metadata"];
                    line_items: components["schemas"]["LineItem"][];
                };
            };
        };
        responses: {
            /** @description The authorized invoice and how its buyer reaches it. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: {
                            nonce_auth_id: string;
                            authorized_invoice_id: components["schemas"]["Id"];
                            /** Format: uri */
                            redirect: string;
                            escrow_id?: components["schemas"]["Id"];
                        } | {
                            authorized_invoice_id: components["schemas"]["Id"];
                            password_token: components["schemas"]["UserToken"];
                            escrow_id?: components["schemas"]["Id"];
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
    listInvoices: {
        parameters: {
            query?: {
                limit?: number;
                starting_after?: components["schemas"]["Id"];
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
            /** @description A page of invoices. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: {
                            invoices: components["schemas"]["Invoice"][];
                            has_more: boolean;
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
    getInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invoice. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: components["schemas"]["Invoice"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["InvoiceNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    refundInvoice: {
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
                Prefer?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "invoice_id": "inv_01JDW7Q3V9K2M4N6P8R0S2T4V6",
                 *       "reason": "product_related",
                 *       "sub_reason": "never_arrived",
                 *       "note": "ticket 4411"
                 *     }
                 */
                "application/json": {
                    invoice_id: components["schemas"]["Id"];
                    /** @enum {string} */
                    reason: "billing" | "fraud" | "product_related" | "other";
                    sub_reason?: string;
                    note?: string;
                };
            };
        };
        responses: {
            /** @description The refund ran; the invoice's refund summary. */
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
                     *         "invoice_id": "inv_01JDW7Q3V9K2M4N6P8R0S2T4V6",
                     *         "is_fully_refunded": true,
                     *         "refunded": {
                     *           "USD": 1000
                     *         },
                     *         "refundable": {
                     *           "USD": 0
                     *         },
                     *         "refunds": [
                     *           {
                     *             "refund_invoice_id": "inv_01JDW7R8X1A3C5E7G9J1L3N5Q7",
                     *             "status": "REFUND-SUCCESS",
                     *             "line_item_id": null,
                     *             "amount": 1000,
                     *             "currency": "USD",
                     *             "payment_methods": [
                     *               {
                     *                 "payment_method_id": "pm_01JDW7P2T8J1L3N5Q7S9U1W3Y5",
                     *                 "amount": 1000,
                     *                 "status": "succeeded"
                     *               }
                     *             ],
                     *             "reason": "product_related",
                     *             "sub_reason": "never_arrived",
                     *             "note": "ticket 4411",
                     *             "failure_reason": "",
                     *             "created": "2026-11-26T22:10:00.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RefundSummaryEnvelope"];
                };
            };
            /** @description Accepted; the summary as it stands (`Location` is the summary). */
            202: {
                headers: {
                    Location?: string;
                    "X-Command-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundSummaryEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["InvoiceNotFound"];
            /** @description `NOTHING_TO_REFUND`, `DISPUTED`, `REFUND_REJECTED` (payload = the refund summary), `REFUND_NOT_ALLOWED`, or the Idempotency-Key is in use. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "Failure",
                     *       "message": [
                     *         "Everything this invoice charged has been refunded already."
                     *       ],
                     *       "codes": [
                     *         "NOTHING_TO_REFUND"
                     *       ],
                     *       "payload": null
                     *     }
                     */
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    refundLineItem: {
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
                Prefer?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "line_item_id": "li_01JDW7Q3V9K2M4N6P8R0S2T4V7",
                 *       "amount": 250,
                 *       "payment_methods": [
                 *         "pm_01JDW7P2T8J1L3N5Q7S9U1W3Y5"
                 *       ],
                 *       "reason": "product_related",
                 *       "sub_reason": "partly_delivered",
                 *       "note": "ticket 4412"
                 *     }
                 */
                "application/json": {
                    line_item_id: components["schemas"]["Id"];
                    amount: number;
                    /** @description Payment method ids (strings), in the order they should be refunded. */
                    payment_methods: components["schemas"]["Id"][];
                    /** @enum {string} */
                    reason: "billing" | "fraud" | "product_related" | "other";
                    sub_reason?: string;
                    note?: string;
                };
            };
        };
        responses: {
            /** @description The refund ran; the invoice's refund summary. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundSummaryEnvelope"];
                };
            };
            /** @description Accepted; the summary as it stands (`Location` is the summary). */
            202: {
                headers: {
                    Location?: string;
                    "X-Command-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundSummaryEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description `LINE_ITEM_NOT_FOUND`: the line is on no purchase invoice of the caller's. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"];
                };
            };
            /** @description `NOTHING_TO_REFUND`, `DISPUTED`, `REFUND_REJECTED` (payload = the refund summary), `REFUND_NOT_ALLOWED`, or the Idempotency-Key is in use. */
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
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    getInvoiceRefunds: {
        parameters: {
            query?: {
                status?: "REFUND-SUCCESS" | "REFUND-PROCESSING" | "REFUND-FAILED" | "REFUND-REJECTED";
            };
            header?: never;
            path: {
                invoice_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The refund summary. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundSummaryEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["InvoiceNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ServerError"];
        };
    };
    getEscrowsByReference: {
        parameters: {
            query?: {
                status?: "OPEN" | "ESCROWED" | "ESCROW-FAILED" | "COMMITTED" | "CANCELLED";
                /** @description `desc` (the default): newest first; `asc`: oldest first. */
                sort?: components["parameters"]["Sort"];
                /** @description Order by creation (`created`) or last change (`updated`) time. */
                sortField?: "created" | "updated";
                limit?: components["parameters"]["Limit"];
                /** @description How many matches to skip (at most 10000; narrow the query to go further). */
                offset?: components["parameters"]["Offset"];
            };
            header?: never;
            path: {
                reference_id: components["schemas"]["Text100"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the escrows with that reference. */
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
                     *         "total": 2,
                     *         "escrow_transactions": [
                     *           {
                     *             "id": "esc_01JDQ8Z3V6XK2M4N5P7R9T0W1Y",
                     *             "account_id": "acc_01JDQ8YB2C3D4E5F6G7H8J9K0M",
                     *             "escrow_invoice_id": "inv_01JDQ8Z3V6XK2M4N5P7R9T0W1Z",
                     *             "commit_invoice_id": "inv_01JDQ90A1B2C3D4E5F6G7H8J9K",
                     *             "cancel_invoice_id": "",
                     *             "status": "COMMITTED",
                     *             "integrator": "Example Games",
                     *             "metadata": {},
                     *             "created": "2026-11-26T10:15:00.000Z",
                     *             "updated": "2026-11-26T10:16:30.000Z"
                     *           },
                     *           {
                     *             "id": "esc_01JDQ7X1A2B3C4D5E6F7G8H9J0",
                     *             "account_id": "acc_01JDQ8YB2C3D4E5F6G7H8J9K0M",
                     *             "escrow_invoice_id": "inv_01JDQ7X1A2B3C4D5E6F7G8H9J1",
                     *             "commit_invoice_id": "",
                     *             "cancel_invoice_id": "",
                     *             "status": "ESCROW-FAILED",
                     *             "integrator": "Example Games",
                     *             "metadata": {},
                     *             "created": "2026-11-26T10:10:00.000Z",
                     *             "updated": "2026-11-26T10:10:01.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: {
                            total: number;
                            escrow_transactions: (components["schemas"]["Escrow"] & unknown)[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            500: components["responses"]["ServerError"];
        };
    };
    getEscrowByInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invoice_id: components["schemas"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The escrow. */
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
                     *         "id": "esc_01JDQ8Z3V6XK2M4N5P7R9T0W1Y",
                     *         "account_id": "acc_01JDQ8YB2C3D4E5F6G7H8J9K0M",
                     *         "escrow_invoice_id": "inv_01JDQ8Z3V6XK2M4N5P7R9T0W1Z",
                     *         "commit_invoice_id": "",
                     *         "cancel_invoice_id": "",
                     *         "status": "ESCROWED",
                     *         "integrator": "Example Games",
                     *         "metadata": {},
                     *         "created": "2026-11-26T10:15:00.000Z",
                     *         "updated": "2026-11-26T10:15:02.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["EscrowEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description No such invoice for the caller (`INVOICE_GET_ERROR`), or the invoice belongs to no escrow (`ESCROW_GET_ERROR`). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureEnvelope"] & {
                        codes?: ("INVOICE_GET_ERROR" | "ESCROW_GET_ERROR")[];
                        payload?: null;
                    };
                };
            };
            500: components["responses"]["ServerError"];
        };
    };
    listAccountInvoices: {
        parameters: {
            query?: {
                /** @description Comma-separated invoice states, e.g. `SUCCESS,FAILED`; each one of `OPEN`, `PROCESSING`, `SUCCESS`, `FAILED`, `CANCELED` (another → 400 naming `states`). */
                states?: string;
                /** @description Comma-separated invoice types, e.g. `user_purchase_escrow,user_purchase_commit_escrow`; each one of the invoice types Holdfast makes (`user_purchase`, `user_purchase_escrow`, `user_purchase_commit_escrow`, `user_purchase_refund_escrow`, `token_purchase`, the `_virtual` forms of the four purchase types, and the refunds `user_refund` and `user_refund_virtual`; another → 400 naming `invoice_types`). */
                invoice_types?: string;
                /** @description `desc` (the default): newest first; `asc`: oldest first. */
                sort?: components["parameters"]["Sort"];
                /** @description Order by creation (`created`) or last change (`updated`) time. */
                sort_field?: "created" | "updated";
                limit?: components["parameters"]["Limit"];
                /** @description How many matches to skip (at most 10000; narrow the query to go further). */
                offset?: components["parameters"]["Offset"];
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
            /** @description A page of the account's invoices. */
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
                     *         "total": 1,
                     *         "invoices": [
                     *           {
                     *             "invoice_id": "inv_01JDQ8Z3V6XK2M4N5P7R9T0W1Z",
                     *             "account_id": "acc_01JDQ8YB2C3D4E5F6G7H8J9K0M",
                     *             "invoice_type": "user_purchase_escrow",
                     *             "reference_type": "order",
                     *             "reference_id": "1234",
                     *             "state": "SUCCESS",
                     *             "description": "",
                     *             "metadata": {},
                     *             "summary": {
                     *               "total_amount": 150,
                     *               "currency": "USD",
                     *               "display_amount": "USD 1.50"
                     *             },
                     *             "failure_reason": "",
                     *             "created": "2026-11-26T10:15:00.000Z",
                     *             "updated": "2026-11-26T10:15:02.000Z",
                     *             "payment_methods": {},
                     *             "line_items": {},
                     *             "subitems": []
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @constant */
                        status?: "Success";
                        payload?: {
                            total: number;
                            invoices: components["schemas"]["Invoice"][];
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
    getAccountStatement: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                /** @description `desc` (the default): newest first; `asc`: oldest first. */
                sort?: components["parameters"]["Sort"];
                limit?: components["parameters"]["Limit"];
                /** @description How many matches to skip (at most 10000; narrow the query to go further). */
                offset?: components["parameters"]["Offset"];
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
            /** @description A page of the account's statement. */
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
                     *         "total": 2,
                     *         "entries": [
                     *           {
                     *             "entry_id": "1042",
                     *             "posted": "2026-11-26T10:15:02.000Z",
                     *             "wallet_id": "wal_01JDQ8YB2C3D4E5F6G7H8J9K0N",
                     *             "wallet_type": "fiat",
                     *             "currency": "USD",
                     *             "amount": -150,
                     *             "display_amount": "USD -1.50",
                     *             "balance_after": 850,
                     *             "balance_after_display": "USD 8.50",
                     *             "source_type": "escrow",
                     *             "escrow_id": "esc_01JDQ8Z3V6XK2M4N5P7R9T0W1Y",
                     *             "invoice_id": "inv_01JDQ8Z3V6XK2M4N5P7R9T0W1Z",
                     *             "phase": "pay",
                     *             "description": "escrow pay"
                     *           },
                     *           {
                     *             "entry_id": "1001",
                     *             "posted": "2026-11-26T09:00:00.000Z",
                     *             "wallet_id": "wal_01JDQ8YB2C3D4E5F6G7H8J9K0N",
                     *             "wallet_type": "fiat",
                     *             "currency": "USD",
                     *             "amount": 1000,
                     *             "display_amount": "USD 10.00",
                     *             "balance_after": 1000,
                     *             "balance_after_display": "USD 10.00",
                     *             "source_type": "invoice",
                     *             "escrow_id": "",
                     *             "invoice_id": "inv_01JDQ7A1B2C3D4E5F6G7H8J9K0",
                     *             "phase": "pay",
                     *             "description": "invoice pay"
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
                            total: number;
                            entries: components["schemas"]["StatementEntry"][];
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
