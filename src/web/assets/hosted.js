/*
 * Holdfast hosted pages: checkout and payment selection, the user's transaction
 * history and a receipt, and the account's KYC and payout-destination flows (their own modules,
 * hosted-kyc.js and hosted-payout.js, given this page's kit), answering the embedding page with the flow messages (svc.<flow>.complete and the rest). Plain browser JavaScript, no build step. The session is
 * the user token that /ui/appauth/<nonce> left in the URL fragment; it is kept in this tab's
 * sessionStorage only. Everything shown is set as text, never parsed as HTML. The account the
 * token acts for is named at the top of every page with a session. A page opened at top level
 * sends the user back only to the address the server checked and wrote into the page (meta
 * hf-return), never to one from its own address. Loaded as a module (script-src 'self' allows
 * its imports, which are on this origin).
 */
import { kycFlow } from './hosted-kyc.js';
import { payoutFlow } from './hosted-payout.js';

(() => {
  'use strict';
  const root = document.getElementById('hf-root');
  const query = new URLSearchParams(location.search);
  const FLOWS = ['checkout', 'payment-selection', 'transaction-history', 'receipt', 'kyc', 'payout'];
  const flow = FLOWS.find((f) => location.pathname.replace(/\/+$/, '').endsWith(`/${f}`)) || 'checkout';
  // The payout flow ends as adding a payment method does elsewhere: svc.pm.complete.
  const EVENT = flow === 'payout' ? 'svc.pm.complete' : `svc.${flow}.complete`;
  const parse = (raw) => {
    try {
      return raw ? JSON.parse(raw) : {};
    } catch {
      return {};
    }
  };
  const config = parse(query.get('config'));
  // Where a top-level page returns the user: the server's checked value, or nowhere.
  const returnUrl = document.querySelector('meta[name="hf-return"]')?.content || '';
  const theme = parse(query.get('theme'));
  const COLOR = /^(#[0-9a-f]{3,8}|(rgb|rgba|hsl|hsla)\(\s*[\d.%\s,/]+\)|[a-z]{3,20})$/i;
  if (COLOR.test(theme.backgroundColor || '')) document.documentElement.style.setProperty('--hf-bg', theme.backgroundColor);
  if (COLOR.test(theme.primaryColor || '')) document.documentElement.style.setProperty('--hf-primary', theme.primaryColor);

  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get('token')) {
    sessionStorage.setItem('hf-session', JSON.stringify({ token: fragment.get('token'), account: fragment.get('account') }));
    history.replaceState(null, '', location.pathname + location.search);
  }
  const session = parse(sessionStorage.getItem('hf-session'));
  // Under the Stripe card processor (the server says so) cards are collected by Stripe's browser
  // library and reach Holdfast as a PaymentMethod id: this page never sends a card number then.
  const STRIPE_JS = document.querySelector('meta[name="hf-stripe-js"]')?.content || '';
  const STRIPE_KEY = document.querySelector('meta[name="hf-stripe-key"]')?.content || '';
  // Back from the bank's 3-D Secure page: the provider's webhook settles the pay, this page waits for it.
  const RETURN_PARAMS = ['payment_intent', 'payment_intent_client_secret', 'redirect_status'];
  const returnedFromBank = query.has('redirect_status');

  const PAGE_ERRORS = {
    link_expired: 'This link has expired or was already used. Go back to the app and start again.',
    invalid_flow: 'This checkout link is not valid.',
    invalid_config: 'This checkout link is not valid.',
    redirect_not_allowed: 'This checkout link returns to an address that is not allowed.',
    flow_not_allowed: 'This link cannot open this page: the app that made it is not allowed to. Go back to the app.',
  };
  const FAILURES = {
    card_declined: 'The card was declined.',
    insufficient_funds: 'There is not enough money to pay this.',
    authentication_required: 'The card needs the payment confirmed with your bank.',
    authentication_failed: 'The payment was not confirmed with your bank.',
    account_blocked: 'This account cannot make purchases.',
  };
  const DECIMALS = { USD: 2, EUR: 2, GBP: 2, CAD: 2, AUD: 2, JPY: 0, KRW: 0 };

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : value);
    }
    for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
    return node;
  }
  const show = (...nodes) => root.replaceChildren(...nodes);
  // A framed page tells its frame how tall it is, so the widget shows it whole (no inner scrollbar).
  if (window.parent !== window && typeof ResizeObserver === 'function') {
    let last = 0;
    new ResizeObserver(() => {
      const height = Math.ceil(document.documentElement.scrollHeight);
      if (height === last) return;
      last = height;
      window.parent.postMessage({ event: 'svc.resize', source: 'svc', height }, query.get('origin') || '*');
    }).observe(document.body);
  }
  // Cut from the digits, as the API's display_amount is: divided by 10^d in floating point, an
  // amount past 2^53 / 100 printed the wrong cents (9007199254740901 as 90071992547409.02).
  const money = (minor, currency) => {
    const d = DECIMALS[currency] ?? 0;
    const text = String(minor);
    const sign = text.startsWith('-') ? '-' : '';
    const digits = text.slice(sign.length).padStart(d + 1, '0');
    return `${currency} ${sign}${d ? `${digits.slice(0, -d)}.${digits.slice(-d)}` : digits}`;
  };

  let finished = false;
  /** Tells the embedding page (the widget's iframe parent, or the opener) how the flow ended. */
  function notify(fields) {
    if (finished) return;
    finished = true;
    const message = { event: EVENT, source: 'svc', ...fields };
    const target = window.parent !== window ? window.parent : window.opener;
    if (target) {
      target.postMessage(message, query.get('origin') || '*');
    } else if (/^https?:\/\//.test(returnUrl)) {
      const back = new URL(returnUrl);
      for (const key of ['event', 'state', 'trigger', 'id', 'pm_state']) if (message[key]) back.searchParams.set(key, message[key]);
      if (message.paymentMethods) back.searchParams.set('paymentMethods', JSON.stringify(message.paymentMethods));
      location.assign(back.toString());
      return;
    }
    show(el('p', { class: 'hf-muted', text: 'You can close this window now.' }));
  }

  class ApiError extends Error {
    constructor(status, body) {
      super(
        body && Array.isArray(body.message) && body.message.length
          ? body.message.join(' ')
          : typeof body?.payload === 'string'
            ? body.payload
            : `The request failed (HTTP ${status}).`,
      );
      this.status = status;
      this.body = body;
    }
  }

  async function api(method, path, body, headers) {
    const res = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${session.token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...(headers || {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) throw new ApiError(res.status, data);
    return { status: res.status, data };
  }

  /** The full-screen error: its close button ends the flow. */
  function fatal(message) {
    show(
      el(
        'section',
        { class: 'hf-screen-error', role: 'alert' },
        el('h1', { text: 'Something went wrong' }),
        el('p', { class: 'hf-error', text: message }),
        el(
          'div',
          { class: 'hf-actions' },
          el('button', {
            type: 'button',
            class: 'hf-primary',
            'data-hf': 'close',
            text: 'Close',
            onclick: () =>
              notify(
                flow === 'payment-selection' ? { state: 'cancel', trigger: 'close-button' } : { state: 'error', trigger: 'close-button' },
              ),
          }),
        ),
      ),
    );
  }

  function cancelButton() {
    return el('button', { type: 'button', 'data-hf': 'cancel', text: 'Cancel', onclick: () => notify({ state: 'cancel' }) });
  }

  /** The button that opens the add-card `form` (hidden while the form shows). */
  function addCardButton(form) {
    return el('button', {
      type: 'button',
      'data-hf': 'add-card',
      text: 'Add a card',
      hidden: !form.hidden,
      onclick: (e) => {
        form.hidden = false;
        e.target.hidden = true;
      },
    });
  }

  /** The add-card form; `added(id)` runs with the new payment method's id. */
  function cardForm(added) {
    if (STRIPE_JS) return stripeCardForm(added);
    const problem = el('p', { class: 'hf-error', role: 'alert' });
    const field = (name, label, extra) =>
      el(
        'label',
        extra,
        label,
        el('input', { type: 'text', name, autocomplete: 'off', inputmode: name === 'full_name' ? undefined : 'numeric' }),
      );
    const form = el(
      'form',
      { class: 'hf-card', novalidate: true },
      field('number', 'Card number', { class: 'hf-wide' }),
      field('exp_month', 'Month (MM)'),
      field('exp_year', 'Year (YYYY)'),
      field('cvc', 'CVC'),
      field('full_name', 'Name on card (optional)', { class: 'hf-wide' }),
      el('div', { class: 'hf-actions hf-wide' }, el('button', { type: 'submit', 'data-hf': 'save-card', text: 'Save card' })),
      problem,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const v = (name) => form.elements.namedItem(name).value.trim();
      const body = {
        type: 'card',
        card: {
          number: v('number').replace(/\s+/g, ''),
          exp_month: Number(v('exp_month')),
          exp_year: Number(v('exp_year')),
          cvc: v('cvc'),
        },
      };
      if (v('full_name')) body.full_name = v('full_name');
      problem.textContent = '';
      try {
        const { data } = await api('POST', `/v1/${session.account}/payment_methods`, body);
        added(data.payload.id);
      } catch (err) {
        problem.textContent = cardProblem(err);
      }
    });
    return form;
  }

  function cardProblem(err) {
    const errors = err.body?.payload?.errors;
    return errors
      ? `Check ${Object.keys(errors)
          .map((f) => f.replace(/^card\./, '').replace('_', ' '))
          .join(', ')}.`
      : err.message;
  }

  let stripeLoaded;
  /** Stripe's browser library (STRIPE_JS_URL, allowed by this page's policy only under the Stripe processor), loaded once. */
  function loadStripe() {
    stripeLoaded ??= new Promise((resolve, reject) => {
      const script = el('script', { src: STRIPE_JS });
      script.addEventListener('load', () =>
        typeof window.Stripe === 'function' ? resolve(window.Stripe(STRIPE_KEY)) : reject(new Error()),
      );
      script.addEventListener('error', () => reject(new Error()));
      document.head.append(script);
    }).catch(() => {
      stripeLoaded = undefined;
      throw new Error('The card form could not be loaded. Try again.');
    });
    return stripeLoaded;
  }

  /** The add-card form under the Stripe processor: Stripe's card element collects the card, Holdfast gets its PaymentMethod id. */
  function stripeCardForm(added) {
    const problem = el('p', { class: 'hf-error', role: 'alert' });
    const holder = el('div', { class: 'hf-wide', 'data-hf': 'stripe-card' });
    const name = el('input', { type: 'text', name: 'full_name', autocomplete: 'cc-name' });
    const save = el('button', { type: 'submit', 'data-hf': 'save-card', text: 'Save card', disabled: true });
    const form = el(
      'form',
      { class: 'hf-card', novalidate: true },
      el('label', { class: 'hf-wide' }, 'Card', holder),
      el('label', { class: 'hf-wide' }, 'Name on card (optional)', name),
      el('div', { class: 'hf-actions hf-wide' }, save),
      problem,
    );
    let stripe;
    let card;
    if (!STRIPE_KEY) problem.textContent = 'Cards cannot be added here yet.';
    else
      loadStripe().then(
        (loaded) => {
          stripe = loaded;
          card = stripe.elements().create('card');
          card.mount(holder);
          save.disabled = false;
        },
        (err) => {
          problem.textContent = err.message;
        },
      );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!card) return;
      problem.textContent = '';
      save.disabled = true;
      try {
        const fullName = name.value.trim();
        const made = await stripe.createPaymentMethod({ type: 'card', card, billing_details: fullName ? { name: fullName } : undefined });
        if (made.error) {
          problem.textContent = made.error.message || 'Check the card details.';
          return;
        }
        const body = { type: 'card', card: { stripe_payment_method: made.paymentMethod.id } };
        if (fullName) body.full_name = fullName;
        const { data } = await api('POST', `/v1/${session.account}/payment_methods`, body);
        added(data.payload.id);
      } catch (err) {
        problem.textContent = cardProblem(err);
      } finally {
        save.disabled = false;
      }
    });
    return form;
  }

  /**
   * Where the bank's 3-D Secure page sends the buyer back: this page, without what the provider
   * adds on the way back. Sent with a pay only under the Stripe processor: the buyer is here.
   */
  function backHere() {
    const url = new URL(location.href);
    url.hash = '';
    for (const key of RETURN_PARAMS) url.searchParams.delete(key);
    return url.toString();
  }

  /** Radio entries for payment methods; wallets show their balance, and those short of `need` are disabled. */
  function methodList(name, methods, selected, need) {
    return el(
      'div',
      { class: 'hf-methods', role: 'radiogroup' },
      ...methods.map((m) => {
        const wallet = m.provider === 'wallet';
        const short = wallet && need !== undefined && Number(m.wallet_balance) < need;
        return el(
          'label',
          { class: 'hf-method' },
          el('input', { type: 'radio', name, value: m.id, checked: m.id === selected, disabled: short, 'data-hf-method': m.id }),
          el('span', { text: wallet ? `${m.display_string} — ${money(m.wallet_balance, m.processing_currency)}` : m.display_string }),
        );
      }),
    );
  }

  /** The methods that may pay (a PayPal payout destination never does: the payout flow lists those). */
  async function paymentMethods(currency) {
    const { data } = await api('GET', `/v1/${session.account}/payment_methods`);
    return data.payload.filter(
      (m) => m.pm_state === 'active' && m.provider !== 'paypal' && (!currency || m.processing_currency === currency),
    );
  }

  async function acceptTos() {
    const { data } = await api('GET', `/user-info/${session.account}/tos/svc`);
    if (data.signed_tos) return;
    const tos = await fetch('/v1/tos').then((r) => r.json());
    await new Promise((resolve, reject) => {
      show(
        el(
          'section',
          {},
          el('h1', { text: 'Terms of service' }),
          el('p', { class: 'hf-muted', text: 'Please read and accept the terms to continue.' }),
          el('div', { class: 'hf-tos', tabindex: '0', text: tos.content }),
          el(
            'div',
            { class: 'hf-actions' },
            el('button', {
              type: 'button',
              class: 'hf-primary',
              'data-hf': 'accept-tos',
              text: 'Accept and continue',
              onclick: () => api('POST', `/user-info/${session.account}/tos/svc`).then(resolve, reject),
            }),
            cancelButton(),
          ),
        ),
      );
    });
  }

  function successScreen(invoice) {
    show(
      el(
        'section',
        {},
        el('h1', { text: 'Payment complete' }),
        el('p', { text: `${invoice.summary.display_amount} paid.` }),
        el(
          'div',
          { class: 'hf-actions' },
          el('button', {
            type: 'button',
            class: 'hf-primary',
            'data-hf': 'done',
            text: 'Done',
            onclick: () => notify({ state: 'complete', trigger: 'done-button' }),
          }),
        ),
      ),
    );
  }

  /** Whether an invoice waits on its buyer's bank (3-D Secure) and this page has not been there yet. */
  const needsBank = (invoice) => invoice.state === 'PROCESSING' && Boolean(invoice.next_action_url) && !returnedFromBank;

  /**
   * A payment accepted for later (202): its invoice once settled — or once it waits on the
   * buyer's bank — looked at every second for up to two minutes.
   */
  async function awaitInvoice(invoiceId) {
    for (let i = 0; i < 120; i++) {
      const { data } = await api('GET', `/v2/invoice/${invoiceId}`);
      if ((data.payload.state !== 'OPEN' && data.payload.state !== 'PROCESSING') || needsBank(data.payload)) return data.payload;
      await new Promise((r) => setTimeout(r, 1000));
    }
    throw new Error('The payment is still being processed. It will complete on its own; check back later.');
  }

  /** How a pay answered: the outcome, or (3-D Secure) off to the buyer's bank, which sends them back here. */
  async function payOutcome(invoiceId, status, payload) {
    const invoice = status === 202 && !needsBank(payload) ? await awaitInvoice(invoiceId) : payload;
    if (needsBank(invoice)) {
      show(el('p', { class: 'hf-muted', 'data-hf': 'authenticating', text: 'Taking you to your bank to confirm the payment…' }));
      location.assign(invoice.next_action_url);
      return;
    }
    if (invoice.state === 'SUCCESS') return successScreen(invoice);
    fatal(`The payment did not go through. ${FAILURES[invoice.failure_reason] || invoice.failure_reason || ''}`.trim());
  }

  async function checkout() {
    const invoiceId = query.get('authorized_invoice_id');
    await acceptTos();
    const {
      data: { payload: invoice },
    } = await api('GET', `/v2/invoice/${invoiceId}`);
    if (invoice.state === 'SUCCESS') return successScreen(invoice);
    // A pay waiting on the buyer's bank (3-D Secure): back from it, wait for the outcome; else go there.
    if (invoice.state === 'PROCESSING') {
      show(el('p', { class: 'hf-muted', 'data-hf': 'processing', text: 'Your payment is being processed…' }));
      return payOutcome(invoiceId, 202, invoice);
    }
    // Back from the bank after the provider's answer already settled the pay as failed: say why, as a pay that waited would.
    if (invoice.state === 'FAILED' && returnedFromBank) return payOutcome(invoiceId, 200, invoice);
    if (invoice.state !== 'OPEN') return fatal(`This purchase cannot be paid: it is ${invoice.state.toLowerCase()}.`);
    // Methods chosen by an earlier pay that has not finished (this page was reloaded, or that
    // pay was cut short): pay again with them — it joins the one running, or runs it — never twice.
    if (Object.keys(invoice.payment_methods).length) {
      show(el('p', { class: 'hf-muted', 'data-hf': 'processing', text: 'Your payment is being processed…' }));
      const { status, data } = await api('POST', `/v2/invoice/${invoiceId}/pay`, STRIPE_JS ? { return_url: backHere() } : undefined, {
        'idempotency-key': `checkout-${invoiceId}-resume`,
      });
      return payOutcome(invoiceId, status, data.payload);
    }
    const { currency, total_amount: total } = invoice.summary;
    let methods = (await paymentMethods(currency)).filter((m) => !(config.hideUserWallets && m.provider === 'wallet'));
    let selected = methods.find((m) => m.provider !== 'wallet' || Number(m.wallet_balance) >= total)?.id;

    const render = () => {
      const problem = el('p', { class: 'hf-error', role: 'alert' });
      const list = methodList('hf-method', methods, selected, total);
      const form = cardForm(async (id) => {
        methods = (await paymentMethods(currency)).filter((m) => !(config.hideUserWallets && m.provider === 'wallet'));
        selected = id;
        render();
      });
      form.hidden = methods.length > 0;
      const pay = el('button', {
        type: 'button',
        class: 'hf-primary',
        'data-hf': 'pay',
        text: config.selectButton?.label || `Pay ${invoice.summary.display_amount}`,
      });
      pay.addEventListener('click', async () => {
        const chosen = list.querySelector('input:checked');
        if (!chosen) {
          problem.textContent = 'Choose how to pay.';
          return;
        }
        pay.disabled = true;
        try {
          const { status, data } = await api(
            'POST',
            `/v2/invoice/${invoiceId}/pay`,
            {
              payment_methods: [{ payment_method_id: chosen.value, amount: 0 }],
              // The buyer is here: a card that needs 3-D Secure takes them to their bank and back.
              ...(STRIPE_JS ? { return_url: backHere() } : {}),
            },
            { 'idempotency-key': `checkout-${invoiceId}-${chosen.value}` },
          );
          await payOutcome(invoiceId, status, data.payload);
        } catch (err) {
          if (err.status === 400) {
            problem.textContent = err.message;
            pay.disabled = false;
            return;
          }
          fatal(err.message);
        }
      });
      const lines = Object.values(invoice.line_items).map((l) =>
        el(
          'li',
          {},
          el('span', {
            text: [l.description, config.hideSKUs ? '' : l.product_sku].filter(Boolean).join(' · ') || 'Item',
            'data-hf': 'line',
          }),
          el('span', { text: l.display_amount }),
        ),
      );
      show(
        el(
          'section',
          {},
          el('h1', { text: invoice.description || 'Checkout' }),
          config.showInvoiceReferenceInfo && (invoice.reference_type || invoice.reference_id)
            ? el('p', { class: 'hf-muted', 'data-hf': 'reference', text: `${invoice.reference_type} ${invoice.reference_id}`.trim() })
            : null,
          el('ul', { class: 'hf-lines' }, ...lines),
          el(
            'div',
            { class: 'hf-total' },
            el('span', { text: 'Total' }),
            el('span', { 'data-hf': 'total', text: invoice.summary.display_amount }),
          ),
          el('h2', { text: 'Pay with' }),
          methods.length ? list : el('p', { class: 'hf-muted', text: 'Add a card to pay.' }),
          addCardButton(form),
          form,
          problem,
          el('div', { class: 'hf-actions' }, pay, cancelButton()),
        ),
      );
    };
    render();
  }

  async function paymentSelection() {
    const details = config.transactionDetails;
    let methods = await paymentMethods(details?.currency);
    let selected = methods.length ? methods[0].id : undefined;
    let second;

    const render = () => {
      const problem = el('p', { class: 'hf-error', role: 'alert' });
      const list = methodList('hf-method', methods, selected);
      const current = methods.find((m) => m.id === selected);
      const rest =
        details && current && current.provider === 'wallet' && Number(current.wallet_balance) < details.transaction_amount
          ? methods.filter((m) => m.provider !== 'wallet')
          : [];
      const remainder = rest.length ? details.transaction_amount - Number(current.wallet_balance) : 0;
      list.addEventListener('change', (e) => {
        selected = e.target.value;
        render();
      });
      const form = cardForm(async (id) => {
        methods = await paymentMethods(details?.currency);
        if (rest.length) second = id;
        else selected = id;
        render();
      });
      form.hidden = methods.length > 0;
      const secondList = rest.length ? methodList('hf-second', rest, second) : null;
      if (secondList)
        secondList.addEventListener('change', (e) => {
          second = e.target.value;
        });
      const confirm = el('button', {
        type: 'button',
        class: 'hf-primary',
        'data-hf': 'select',
        text: config.selectButton?.label || 'Use this payment method',
      });
      confirm.addEventListener('click', () => {
        if (!selected) {
          problem.textContent = 'Choose a payment method.';
          return;
        }
        if (rest.length) {
          // The wallet's whole balance first, the remainder (amount 0) on the second method.
          if (!second) {
            problem.textContent = 'Choose how to pay the rest.';
            return;
          }
          const balance = Number(current.wallet_balance);
          return notify({
            state: 'complete',
            paymentMethods:
              balance > 0
                ? [
                    { payment_method_id: selected, amount: balance },
                    { payment_method_id: second, amount: 0 },
                  ]
                : [{ payment_method_id: second, amount: 0 }],
          });
        }
        notify({ state: 'complete', paymentMethods: [{ payment_method_id: selected, amount: 0 }] });
      });
      show(
        el(
          'section',
          {},
          el('h1', { text: 'Choose how to pay' }),
          details ? el('p', { class: 'hf-muted', text: `Amount: ${money(details.transaction_amount, details.currency)}` }) : null,
          methods.length ? list : el('p', { class: 'hf-muted', text: 'Add a card to continue.' }),
          secondList ? el('h2', { text: `Pay the remaining ${money(remainder, details.currency)} with` }) : null,
          secondList,
          addCardButton(form),
          form,
          problem,
          el('div', { class: 'hf-actions' }, confirm, cancelButton()),
        ),
      );
    };
    render();
  }

  const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const STATES = { OPEN: 'Open', PROCESSING: 'Processing', SUCCESS: 'Paid', FAILED: 'Failed', CANCELED: 'Canceled' };
  const KINDS = {
    user_purchase: 'Purchase',
    user_purchase_escrow: 'Purchase',
    user_purchase_commit_escrow: 'Purchase completed',
    user_purchase_refund_escrow: 'Refund',
    token_purchase: 'Token purchase',
  };
  const doneButton = () =>
    el('button', { type: 'button', class: 'hf-primary', 'data-hf': 'done', text: 'Done', onclick: () => notify({ state: 'complete' }) });

  /** The user's payment methods' names by id (a receipt names what was charged); empty when they cannot be read. */
  const methodNames = () =>
    paymentMethods().then(
      (list) => new Map(list.map((m) => [m.id, m.display_string])),
      () => new Map(),
    );

  /** One invoice as a receipt, naming methods from `names`; `back` (from the history) returns to the list. */
  function receiptView(invoice, names, back) {
    const lines = Object.values(invoice.line_items).map((l) =>
      el(
        'li',
        {},
        el('span', { text: [l.description, config.hideSKUs ? '' : l.product_sku].filter(Boolean).join(' · ') || 'Item' }),
        el('span', { text: l.display_amount }),
      ),
    );
    const charges = Object.values(invoice.payment_methods).map((m) =>
      el('li', {}, el('span', { text: names.get(m.payment_method_id) || m.payment_method_id }), el('span', { text: m.display_amount })),
    );
    show(
      el(
        'section',
        { 'data-hf': 'receipt' },
        el('h1', { text: invoice.description || KINDS[invoice.invoice_type.replace(/_virtual$/, '')] || 'Receipt' }),
        el('p', {
          class: 'hf-muted',
          text: `${when(invoice.created)} · ${STATES[invoice.state] || invoice.state}${invoice.failure_reason ? ` (${invoice.failure_reason})` : ''}`,
        }),
        invoice.reference_id ? el('p', { class: 'hf-muted', text: `${invoice.reference_type} ${invoice.reference_id}`.trim() }) : null,
        el('ul', { class: 'hf-lines' }, ...lines),
        el(
          'div',
          { class: 'hf-total' },
          el('span', { text: 'Total' }),
          el('span', { 'data-hf': 'total', text: invoice.summary.display_amount }),
        ),
        charges.length ? el('h2', { text: 'Charged' }) : null,
        charges.length ? el('ul', { class: 'hf-lines' }, ...charges) : null,
        el('p', { class: 'hf-muted', text: `Receipt ${invoice.invoice_id}` }),
        el(
          'div',
          { class: 'hf-actions' },
          back ? el('button', { type: 'button', 'data-hf': 'back', text: 'Back', onclick: back }) : null,
          doneButton(),
        ),
      ),
    );
  }

  async function receipt() {
    const [{ data }, names] = await Promise.all([api('GET', `/v2/invoice/${encodeURIComponent(query.get('invoice_id'))}`), methodNames()]);
    receiptView(data.payload, names);
  }

  async function transactionHistory() {
    const invoices = [];
    let more = false;
    const load = async () => {
      const after = invoices.length ? `&starting_after=${invoices[invoices.length - 1].invoice_id}` : '';
      const { data } = await api('GET', `/v1/${session.account}/invoices?limit=20${after}`);
      invoices.push(...data.payload.invoices);
      more = data.payload.has_more;
    };
    const render = () =>
      show(
        el(
          'section',
          {},
          el('h1', { text: 'Your transactions' }),
          invoices.length
            ? el(
                'ul',
                { class: 'hf-lines', 'data-hf': 'history' },
                ...invoices.map((i) =>
                  el(
                    'li',
                    {},
                    el('button', {
                      type: 'button',
                      class: 'hf-link',
                      'data-hf-invoice': i.invoice_id,
                      onclick: () => receiptView(i, names, render),
                      text: `${when(i.created)} · ${i.description || KINDS[i.invoice_type.replace(/_virtual$/, '')] || i.invoice_type}`,
                    }),
                    el('span', { text: `${i.summary.display_amount} · ${STATES[i.state] || i.state}` }),
                  ),
                ),
              )
            : el('p', { class: 'hf-muted', text: 'No transactions yet.' }),
          el(
            'div',
            { class: 'hf-actions' },
            more
              ? el('button', {
                  type: 'button',
                  'data-hf': 'more',
                  text: 'Show more',
                  onclick: () => load().then(render, (err) => fatal(err.message)),
                })
              : null,
            doneButton(),
          ),
        ),
      );
    const [names] = await Promise.all([methodNames(), load()]);
    render();
  }

  /** What the flow modules use of this page: they build their screens and end the flow with it. */
  const kit = { el, show, api, notify, fatal, cancelButton, session, config };
  const RUN = {
    checkout: () => checkout(),
    'payment-selection': () => paymentSelection(),
    'transaction-history': () => transactionHistory(),
    receipt: () => receipt(),
    kyc: () => kycFlow(kit),
    payout: () => payoutFlow(kit),
  };
  /**
   * Names the account the token acts for before anything else is shown, so a link to someone
   * else's account cannot pass for the buyer's own; the API paths use that account too.
   */
  async function signedIn() {
    const { data } = await api('GET', '/ui/session');
    session.account = data.payload.account_id;
    const bar = document.getElementById('hf-account');
    bar.replaceChildren('Signed in as ', el('bdi', { 'data-hf': 'account', title: data.payload.account_id, text: data.payload.username }));
    bar.hidden = false;
  }

  const pageError = document.querySelector('meta[name="hf-error"]');
  if (pageError) fatal(PAGE_ERRORS[pageError.content] || PAGE_ERRORS.invalid_flow);
  else if (!session.token) fatal(PAGE_ERRORS.link_expired);
  else
    signedIn()
      .then(() => RUN[flow]())
      .catch((err) => fatal(err.message));
})();
