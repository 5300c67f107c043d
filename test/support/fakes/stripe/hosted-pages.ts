/** The small HTML pages the fake shows a browser: the issuer's 3-D Secure challenge and Stripe Identity's flow. */

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${body}</body></html>`;

const button = (action: string, label: string, name: string) =>
  `<form method="post" action="${esc(action)}"><button type="submit" data-stripe-fake="${esc(name)}">${esc(label)}</button></form>`;

/** The 3-D Secure test page of a PaymentIntent, with Stripe's two test buttons. */
export function threeDSecurePage(intentId: string, amount: number, currency: string): string {
  return page(
    '3D Secure 2 Test Page',
    `<p>Stripe fake: authenticate a payment of ${amount} ${esc(currency.toUpperCase())} (${esc(intentId)}).</p>` +
      button(`/3ds/${intentId}?outcome=complete`, 'Complete', 'complete') +
      button(`/3ds/${intentId}?outcome=fail`, 'Fail', 'fail'),
  );
}

/** Stripe Identity's hosted verification page of a session, with one button per outcome a user can cause. */
export function identityPage(sessionId: string): string {
  return page(
    'Verify your identity',
    `<p>Stripe fake: verification session ${esc(sessionId)}.</p>` +
      button(`/identity/${sessionId}?outcome=verified`, 'Submit a valid document', 'verified') +
      button(`/identity/${sessionId}?outcome=processing`, 'Submit (result later)', 'processing') +
      button(
        `/identity/${sessionId}?outcome=requires_input&code=document_unverified_other`,
        'Submit an unreadable document',
        'requires_input',
      ) +
      button(`/identity/${sessionId}?outcome=requires_input&code=abandoned`, 'Give up', 'abandoned'),
  );
}

/** What a page shows once done when there is no `return_url` to go back to. */
export function donePage(title: string, detail: string): string {
  return page(title, `<p data-stripe-fake="result">${esc(detail)}</p>`);
}
