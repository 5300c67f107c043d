/**
 * The console's signed-in pages: account search, an account, the payouts queue, the KYC review
 * queue, disputes and the second factor. Each takes what the console service read and renders
 * it with the helpers of console.pages.ts (escaped, labelled, readable on a phone).
 */
import { CAPABILITIES, REASONS } from '../accounts/account-block.rules.js';
import { EVIDENCE_FIELDS } from '../disputes/dispute.rules.js';
import { REFUND_REASONS } from '../refunds/refund.rules.js';
import { permits } from './console.rules.js';
import type {
  accountOverview,
  auditTrail,
  disputeList,
  disputeOf,
  invoiceWithRefunds,
  kycQueue,
  payoutQueue,
  searchAccounts,
  webhooksOverview,
} from './console.service.js';
import { csrfField, decisionForm, facts, html, money, notice, type PageUser, page, table } from './console.pages.js';

type Overview = Awaited<ReturnType<typeof accountOverview>>;

const disputeLink = (id: string) => html`<a href="/console/disputes/${encodeURIComponent(id)}"><code>${id}</code></a>`;
const invoiceLink = (id: string) => (id ? html`<a href="/console/invoices/${encodeURIComponent(id)}"><code>${id}</code></a>` : '');
const accountLink = (id: string) => html`<a href="/console/accounts/${encodeURIComponent(id)}"><code>${id}</code></a>`;

export function searchPage(who: PageUser, q: string, found: Awaited<ReturnType<typeof searchAccounts>> | undefined): string {
  const results =
    found === undefined
      ? html``
      : table(
          'Accounts found',
          ['Account', 'Username', 'Email', 'Created'],
          found.map((a) => [accountLink(a.account_id), a.username, a.email ?? '', a.created]),
          'No account has this id, username or external platform user id.',
        );
  return page(
    'Accounts',
    html`<form method="get" action="/console" role="search" class="stack">
<label for="q">Account id, username or external platform user id</label>
<input id="q" name="q" value="${q}" required maxlength="255">
<button type="submit">Search</button></form>${results}`,
    who,
    '/console',
  );
}

export function accountPage(who: PageUser, o: Overview, done?: string): string {
  const p = o.profile;
  const blocks = Object.entries(o.blocks) as Array<[string, unknown]>;
  return page(
    `Account ${p.username}`,
    html`${notice('ok', done)}${facts([
      ['Account id', html`<code>${p.account_id}</code>`],
      ['Username', p.username],
      ['Email', p.email ?? ''],
      ['Created', p.created],
      ['Blocked', p.is_blocked ? 'yes' : 'no'],
      ['KYC', `${o.kyc.state}${o.kyc.kyc_id ? ` (${o.kyc.kyc_id})` : ''}`],
    ])}
${table(
  'Blocks',
  ['Capability', 'Reason', 'Issuer', 'Lift'],
  blocks.map(([capability, b]) => {
    const block = b as { reason: string; issuer: string };
    return [
      capability,
      block.reason,
      block.issuer,
      decisionForm(who, 'block.lift', {
        url: `/console/accounts/${p.account_id}/unblock/${capability}`,
        label: 'Lift',
        id: `lift-${capability}`,
      }),
    ];
  }),
  'No active block.',
)}
${decisionForm(who, 'block.apply', {
  url: `/console/accounts/${p.account_id}/block`,
  label: 'Block',
  id: 'block',
  extra: html`<label for="capability">Capability</label><select id="capability" name="block_capability">${CAPABILITIES.map(
    (c) => html`<option>${c}</option>`,
  )}</select><label for="block-reason">Block reason</label><select id="block-reason" name="block_reason">${REASONS.map(
    (r) => html`<option>${r}</option>`,
  )}</select>`,
})}
${table(
  'Wallets and holds',
  ['Currency', 'Spendable', 'Convertible', 'Held by disputes', 'Held in escrow'],
  o.balances.map((b) => [
    b.currency,
    money(b.spendable, b.currency),
    money(b.convertible, b.currency),
    money(b.held, b.currency),
    money(b.held_in_escrow, b.currency),
  ]),
  'No wallet.',
)}
${table(
  `Statement (${o.statement.total} entries), newest first`,
  ['Posted', 'Wallet', 'Amount', 'Balance after', 'Source', 'Invoice', 'Description'],
  o.statement.entries.map((e) => [
    e.posted,
    `${e.currency} ${e.wallet_type}`,
    e.display_amount,
    e.balance_after_display,
    e.source_type === 'escrow'
      ? html`escrow <code>${e.escrow_id}</code> (${e.phase})`
      : e.phase
        ? `${e.source_type} (${e.phase})`
        : e.source_type,
    invoiceLink(e.invoice_id),
    e.description ?? '',
  ]),
  'No wallet entry yet.',
)}
${table(
  'Payment methods',
  ['Id', 'Kind', 'Shown as', 'State'],
  o.methods.map((m) => [html`<code>${m.payment_method_id}</code>`, `${m.provider} ${m.method_class}`, m.display_string, m.pm_state]),
)}
${table(
  `Invoices (${o.invoices.total ?? o.invoices.invoices.length})`,
  ['Invoice', 'Type', 'State', 'Amount', 'Created'],
  o.invoices.invoices.map((i) => [invoiceLink(i.invoice_id), i.invoice_type, i.state, i.summary.display_amount, i.created]),
)}
${table(
  `Escrows bought (${o.escrows.total})`,
  ['Escrow', 'Status', 'Amount', 'Escrow invoice', 'Commit invoice', 'Cancel invoice', 'Created'],
  o.escrows.escrows.map((x) => [
    html`<code>${x.id}</code>`,
    x.status,
    money(x.total_amount, x.currency),
    invoiceLink(x.escrow_invoice_id),
    invoiceLink(x.commit_invoice_id),
    invoiceLink(x.cancel_invoice_id),
    x.created,
  ]),
  'No escrow.',
)}
${table(
  `Refunds (${o.refunds.total})`,
  ['Refund', 'Of invoice', 'State', 'Amount', 'Reason', 'Created'],
  o.refunds.invoices.map((r) => {
    const m = r.metadata as { refunded_invoice_id?: string; reason?: string };
    return [
      invoiceLink(r.invoice_id),
      invoiceLink(m.refunded_invoice_id ?? ''),
      r.state,
      r.summary.display_amount,
      m.reason ?? '',
      r.created,
    ];
  }),
  'No refund.',
)}
${table(
  `Payouts (${o.payouts.total})`,
  ['Payout', 'Status', 'Amount', 'Created'],
  o.payouts.payouts.map((x) => [html`<code>${x.payout_status_id}</code>`, x.payout_status, money(x.amount, x.currency), x.created]),
)}
${table(
  `Disputes (${o.disputes.total})`,
  ['Dispute', 'Status', 'Amount', 'Reason', 'Evidence due'],
  o.disputes.disputes.map((d) => [disputeLink(d.dispute_id), d.status, money(d.amount, d.currency), d.reason, d.evidence_due_by]),
)}`,
    who,
  );
}

export function payoutQueuePage(who: PageUser, payouts: Awaited<ReturnType<typeof payoutQueue>>, done?: string): string {
  return page(
    'Payouts queue',
    html`${notice('ok', done)}<p>Payouts waiting for an operator (FUNDS-IN-ESCROW) and failed ones (approve retries them), oldest first.</p>
${table(
  'Payouts to decide',
  ['Payout', 'Account', 'Amount', 'Status', 'Requested', 'Decide'],
  payouts.map((x) => [
    html`<code>${x.payout_status_id}</code>`,
    accountLink(x.account_id),
    money(x.amount, x.currency),
    html`${x.payout_status}${x.failure_code ? ` (${x.failure_code})` : ''}`,
    x.created,
    html`${decisionForm(who, 'payout.approve', {
      url: `/console/payouts/${x.payout_status_id}/approve`,
      label: 'Approve',
      id: `approve-${x.payout_status_id}`,
    })}${decisionForm(who, 'payout.reject', {
      url: `/console/payouts/${x.payout_status_id}/reject`,
      label: 'Reject',
      id: `reject-${x.payout_status_id}`,
    })}`,
  ]),
  'No payout is waiting.',
)}`,
    who,
    '/console/payouts',
  );
}

export function kycQueuePage(who: PageUser, checks: Awaited<ReturnType<typeof kycQueue>>, done?: string): string {
  return page(
    'KYC reviews',
    html`${notice('ok', done)}<p>Identity checks the verifier left for a person to decide (MANUAL_REVIEW), oldest first.</p>
${table(
  'Checks to review',
  ['Account', 'Check', 'Submissions', 'Decide'],
  checks.map((c) => [
    accountLink(c.accountId),
    html`<code>${c.kycId}</code>`,
    c.submissions,
    decisionForm(who, 'kyc.decide', {
      url: `/console/kyc/${c.accountId}/decide`,
      label: 'Decide',
      id: c.accountId,
      extra: html`<label for="state-${c.accountId}">Decision</label><select id="state-${c.accountId}" name="state">
<option>ACCEPT</option><option>DENY</option><option>CANCEL</option></select>`,
    }),
  ]),
  'No check is waiting for review.',
)}`,
    who,
    '/console/kyc',
  );
}

export function disputesPage(who: PageUser, disputes: Awaited<ReturnType<typeof disputeList>>): string {
  return page(
    'Disputes',
    table(
      'Disputes, newest first',
      ['Dispute', 'Account', 'Status', 'Amount', 'Held', 'Unrecovered', 'Evidence due'],
      disputes.map((d) => [
        disputeLink(d.dispute_id),
        accountLink(d.account_id),
        d.status,
        money(d.amount, d.currency),
        d.traced
          .filter((t) => t.held > 0)
          .map((t) => money(t.held, t.currency))
          .join(', '),
        Object.entries(d.unrecovered)
          .map(([c, a]) => money(a, c))
          .join(', '),
        d.evidence_due_by,
      ]),
      'No dispute.',
    ),
    who,
    '/console/disputes',
  );
}

export function securityPage(who: PageUser, enrolling: { secret: string; uri: string } | undefined): string {
  const on = Boolean(who.user.totpSecret);
  const body = enrolling
    ? html`<p>Add this key to your authenticator app (or open the link on your phone), then enter the code it shows.</p>
${facts([
  ['Key', html`<code>${enrolling.secret}</code>`],
  ['Link', html`<a href="${enrolling.uri}">${enrolling.uri}</a>`],
])}
<form method="post" action="/console/security/totp" class="stack">${csrfField(who)}
<label for="code">Code from the app</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required pattern="[0-9]{6}">
<button type="submit">Turn on</button></form>`
    : html`<p>Second factor (TOTP): ${on ? 'on' : 'off'}.</p>
<form method="post" action="/console/security/totp">${csrfField(who)}<button type="submit">${on ? 'Replace the authenticator' : 'Set up an authenticator'}</button></form>`;
  return page('Security', body, who, '/console/security');
}

export function invoicePage(who: PageUser, data: Awaited<ReturnType<typeof invoiceWithRefunds>>, done?: string): string {
  const i = data.invoice as {
    invoice_id: string;
    account_id: string;
    invoice_type: string;
    state: string;
    summary: { display_amount: string; currency: string };
    created: string;
    disputes?: unknown;
  };
  const r = data.refunds;
  const currency = i.summary.currency;
  const refundable = r.refundable[currency] ?? 0;
  return page(
    `Invoice ${i.invoice_id}`,
    html`${notice('ok', done)}${facts([
      ['Account', accountLink(i.account_id)],
      ['Type', i.invoice_type],
      ['State', i.state],
      ['Amount', i.summary.display_amount],
      ['Created', i.created],
      ['Refunded', money(r.refunded[currency] ?? 0, currency)],
      ['Refundable', money(refundable, currency)],
    ])}
${table(
  'Refunds',
  ['Refund', 'Amount', 'Status'],
  r.refunds.map((x) => {
    const v = x as { refund_invoice_id?: string; invoice_id?: string; amount?: number; status?: string };
    return [
      html`<code>${v.refund_invoice_id ?? v.invoice_id ?? ''}</code>`,
      v.amount === undefined ? '' : money(v.amount, currency),
      v.status ?? '',
    ];
  }),
  'No refund yet.',
)}
${
  refundable > 0
    ? decisionForm(who, 'refund.request', {
        url: `/console/invoices/${i.invoice_id}/refund`,
        label: `Refund ${money(refundable, currency)}`,
        id: 'refund',
        extra: html`<label for="refund-reason">Refund reason</label><select id="refund-reason" name="refund_reason">${REFUND_REASONS.map(
          (x) => html`<option>${x}</option>`,
        )}</select>`,
      })
    : html`<p>Nothing is left to refund.</p>`
}`,
    who,
  );
}

export function disputePage(who: PageUser, d: Awaited<ReturnType<typeof disputeOf>>, done?: string): string {
  const open = d.status === 'NEEDS_RESPONSE';
  const canAnswer = open && permits(who.user, 'dispute.evidence');
  const evidence = d.evidence as Record<string, string | undefined>;
  const form = canAnswer
    ? html`<h2>Evidence</h2><form method="post" action="/console/disputes/${d.dispute_id}/evidence" class="stack">${csrfField(who)}
${EVIDENCE_FIELDS.map(
  (f) =>
    html`<label for="ev-${f}">${f.replaceAll('_', ' ')}</label><textarea id="ev-${f}" name="${f}" maxlength="20000" rows="3">${evidence[f] ?? ''}</textarea>`,
)}
<label><input type="checkbox" name="submit" value="true"> Submit for review (no more changes after)</label>
<label for="reason-evidence">Reason</label><input id="reason-evidence" name="reason" required maxlength="500">
<button type="submit">Save evidence</button></form>`
    : html``;
  return page(
    `Dispute ${d.dispute_id}`,
    html`${notice('ok', done)}${facts([
      ['Account', accountLink(d.account_id)],
      ['Invoice', html`<a href="/console/invoices/${d.invoice_id}"><code>${d.invoice_id}</code></a>`],
      ['Status', d.status],
      ['Amount', money(d.amount, d.currency)],
      ['Reason', d.reason],
      ['Fee', money(d.fee, d.currency)],
      ['Evidence due', d.evidence_due_by],
      ['Evidence submitted', d.evidence_submitted ?? 'no'],
      [
        'Unrecovered',
        Object.entries(d.unrecovered)
          .map(([c, a]) => money(a, c))
          .join(', ') || '—',
      ],
    ])}
${table(
  'Where the disputed value went (trace)',
  ['Account', 'Wallet', 'Via', 'Reference', 'Amount', 'Held', 'Released', 'Clawed back'],
  d.traced.map((t) => [
    accountLink(t.account_id),
    html`<code>${t.wallet_id ?? ''}</code>`,
    t.via,
    html`<code>${t.reference_id}</code>`,
    money(t.amount, t.currency),
    money(t.held, t.currency),
    money(t.released, t.currency),
    money(t.clawed_back, t.currency),
  ]),
  'Nothing traced.',
)}${form}`,
    who,
    '/console/disputes',
  );
}

const deliveryState = (d: { status: string; attempts: number }) =>
  d.status === 'pending' && d.attempts > 0 ? 'retrying' : d.status === 'dead' ? 'dead (given up)' : d.status;

const lastAnswer = (d: { last_status: number | null; last_error: string | null }) =>
  d.last_error ?? (d.last_status === null ? '' : `HTTP ${d.last_status}`);

export function webhooksPage(who: PageUser, o: Awaited<ReturnType<typeof webhooksOverview>>, done?: string): string {
  return page(
    'Webhooks and events',
    html`${notice('ok', done)}${table(
      'Endpoints',
      ['Endpoint', 'URL', 'Events', 'Status', 'Failing since'],
      o.endpoints.map((e) => [
        html`<code>${e.id}</code>`,
        e.url,
        e.events.join(', '),
        `${e.status}${e.disabled_reason ? ` (${e.disabled_reason})` : ''}`,
        e.failing_since ?? 'healthy',
      ]),
      'No endpoint: events are kept 30 days and can be listed, but nothing is sent.',
    )}
${table(
  'Failed deliveries, newest first',
  ['Delivery', 'Endpoint', 'Event', 'State', 'Attempts', 'Last error', 'Next attempt'],
  o.failed.map((d) => [
    html`<code>${d.id}</code>`,
    html`<code>${d.endpoint_id}</code>`,
    html`<code>${d.event_id}</code> ${d.event_name}`,
    deliveryState(d),
    d.attempts,
    lastAnswer(d),
    d.next_attempt_at ?? '—',
  ]),
  'No delivery is failing.',
)}
${o.endpoints.map((e) =>
  table(
    `Latest deliveries to ${e.id}`,
    ['Delivery', 'Event', 'State', 'Attempts', 'Last answer', 'Next attempt', 'Created'],
    e.deliveries.map((d) => [
      html`<code>${d.id}</code>`,
      html`<code>${d.event_id}</code> ${d.event_name}`,
      deliveryState(d),
      d.attempts,
      lastAnswer(d),
      d.next_attempt_at ?? '—',
      d.created,
    ]),
    'No delivery yet.',
  ),
)}
${table(
  `Latest events (${o.total} in the last 30 days)`,
  ['Event', 'Name', 'Created', 'Resend'],
  o.events.map((e) => [
    html`<code>${e.id}</code>`,
    e.type,
    e.created,
    decisionForm(who, 'webhook.resend', { url: `/console/events/${e.id}/resend`, label: 'Resend', id: `resend-${e.id}` }),
  ]),
  'No event yet.',
)}`,
    who,
    '/console/webhooks',
  );
}

export function auditPage(
  who: PageUser,
  filter: { action?: string; targetId?: string; actor?: string },
  trail: Awaited<ReturnType<typeof auditTrail>>,
): string {
  return page(
    'Audit trail',
    html`<p>Every decision made here, through the CLI, or by the integrator's server acting as an operator: who, what, why, newest first.
Sealed records are chained by hash (<code>holdfast audit verify</code>).</p>
<form method="get" action="/console/audit" class="stack">
<label for="f-action">Action</label><input id="f-action" name="action" value="${filter.action ?? ''}" maxlength="64">
<label for="f-target">Target id</label><input id="f-target" name="target_id" value="${filter.targetId ?? ''}" maxlength="64">
<label for="f-actor">Actor (id or name)</label><input id="f-actor" name="actor" value="${filter.actor ?? ''}" maxlength="254">
<button type="submit">Filter</button></form>
${table(
  `Records (${trail.total})`,
  ['When', 'Actor', 'Action', 'Target', 'Reason', 'Before', 'After', 'Sealed'],
  trail.records.map((r) => [
    r.at,
    `${r.actor.kind}: ${r.actor.name}`,
    r.action,
    html`${r.target.type} <code>${r.target.id}</code>`,
    r.reason ?? '',
    html`<code>${r.before ? JSON.stringify(r.before) : ''}</code>`,
    html`<code>${r.after ? JSON.stringify(r.after) : ''}</code>`,
    r.seq === null ? 'not yet' : `#${r.seq}`,
  ]),
  'No record matches.',
)}`,
    who,
    '/console/audit',
  );
}
