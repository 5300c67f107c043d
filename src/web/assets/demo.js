/* The staging demo shop: asks its server for a hosted-flow link, runs the widget, shows the callbacks. */
(() => {
  'use strict';
  const log = document.getElementById('demo-log');
  const record = (kind, data) => {
    log.textContent = `${log.textContent === '(none yet)' ? '' : `${log.textContent}\n`}${kind}: ${JSON.stringify(data)}`;
  };
  async function start(path, flow, flowConfig) {
    const res = await fetch(path, { method: 'POST' });
    const body = await res.json();
    if (!res.ok) return record('error', body);
    window.HoldfastWidget.execute({
      rootId: 'demo-widget',
      flow,
      redirect: body.redirect,
      flowConfig,
      onComplete: (e) => record('onComplete', e),
      onError: (e) => record('onError', e),
    });
  }
  document
    .getElementById('demo-checkout')
    .addEventListener('click', () => start('/ui/demo/checkout', 'checkout', { showInvoiceReferenceInfo: true }));
  document.getElementById('demo-selection').addEventListener('click', () => start('/ui/demo/session', 'payment-selection', {}));
})();
