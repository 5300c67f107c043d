/*
 * Holdfast widget: embeds a hosted flow in the integrator's page.
 *
 *   <script src="https://HOLDFAST/widget.js"></script>
 *   HoldfastWidget.execute({ rootId, flow, flowConfig, redirect, onComplete, onError, theme })
 *
 * `flow`: `checkout`, `payment-selection`, or Holdfast's `transaction-history` and `receipt`
 * (with `invoiceId`), `kyc` (the account's identity check; ends with `svc.kyc.complete`
 * `{state}`) and `payout` (choose or add a PayPal payout destination; ends with
 * `svc.pm.complete` `{id, pm_state}`).
 *
 * `redirect` is the link of the authorization call (`POST /v2/authorize/invoice` with the widget
 * mechanism for checkout, `POST /authorize/user` for payment selection). The flow's end arrives as
 * a flow message: `onComplete` gets the `complete` and `cancel` ones, `onError` the
 * `error` one; the frame is removed either way. Only messages from that frame and that origin
 * count; its `svc.resize` messages set the frame's height to the page's. `execute` returns
 * `{ close() }`.
 */
(() => {
  'use strict';
  // The spec's two flows, and the hosted history, receipt, KYC and payout pages (a session link, as for payment selection).
  var FLOWS = ['checkout', 'payment-selection', 'transaction-history', 'receipt', 'kyc', 'payout'];

  function execute(options) {
    var opts = options || {};
    var root = document.getElementById(opts.rootId);
    if (!root) throw new Error(`HoldfastWidget.execute: no element with id "${opts.rootId}"`);
    if (!opts.redirect) throw new Error('HoldfastWidget.execute: redirect is required (the link the authorization call answered)');
    var flow = opts.flow || 'checkout';
    if (FLOWS.indexOf(flow) < 0) throw new Error(`HoldfastWidget.execute: flow must be one of ${FLOWS.join(', ')}`);
    var url = new URL(opts.redirect, document.baseURI);
    url.searchParams.set('flow', flow);
    if (opts.flowConfig) url.searchParams.set('config', JSON.stringify(opts.flowConfig));
    if (opts.theme) url.searchParams.set('theme', JSON.stringify(opts.theme));
    if (opts.invoiceId) url.searchParams.set('invoice_id', opts.invoiceId);
    if (window.location.origin && window.location.origin !== 'null') url.searchParams.set('origin', window.location.origin);

    var frame = document.createElement('iframe');
    frame.src = url.toString();
    frame.title = {
      checkout: 'Checkout',
      'payment-selection': 'Choose a payment method',
      'transaction-history': 'Your transactions',
      receipt: 'Receipt',
      kyc: 'Verify your identity',
      payout: 'Choose where to be paid',
    }[flow];
    frame.setAttribute('allow', 'payment');
    frame.style.width = '100%';
    frame.style.height = '620px';
    frame.style.border = '0';
    root.replaceChildren(frame);

    function close() {
      window.removeEventListener('message', onMessage);
      if (frame.parentNode) frame.parentNode.removeChild(frame);
    }
    function onMessage(event) {
      if (event.source !== frame.contentWindow || event.origin !== url.origin) return;
      var data = event.data;
      if (data?.source !== 'svc' || typeof data.event !== 'string') return;
      // The page's height as it changes: the frame follows it (within sane bounds).
      if (data.event === 'svc.resize') {
        if (typeof data.height === 'number' && Number.isFinite(data.height))
          frame.style.height = `${Math.min(Math.max(data.height, 200), 4000)}px`;
        return;
      }
      close();
      if (data.state === 'error') {
        if (typeof opts.onError === 'function') opts.onError(data);
      } else if (typeof opts.onComplete === 'function') opts.onComplete(data);
    }
    window.addEventListener('message', onMessage);
    return { close: close };
  }

  window.HoldfastWidget = { execute: execute };
})();
