/*
 * The hosted payout flow: where the account's payouts go. It lists the account's PayPal payment
 * methods (GET /v1/{account}/payment_methods, provider `paypal`) to choose one, or adds one by
 * e-mail (POST /v1/{account}/payment_methods, `{type: 'paypal', paypal: {email}}`); a 400
 * names its problem next to the e-mail field. The flow ends with svc.pm.complete
 * {id, pm_state} of the destination chosen or added, or {state: 'cancel'}. Everything shown is
 * text.
 */

const EMAIL_PROBLEMS = {
  REQUIRED: 'Give the e-mail address of your PayPal account.',
  TOO_LONG: 'This e-mail address is too long.',
};

export async function payoutFlow(kit) {
  const { el, show, api, notify, cancelButton, session } = kit;
  const path = `/v1/${encodeURIComponent(session.account)}/payment_methods`;
  const destinations = async () => {
    const { data } = await api('GET', path);
    return data.payload.filter((m) => m.provider === 'paypal');
  };
  const methods = await destinations();
  const end = (method) => notify({ id: method.id, pm_state: method.pm_state });

  const problem = el('p', { class: 'hf-error', role: 'alert', 'data-hf': 'payout-error' });
  const list = el(
    'div',
    { class: 'hf-methods', role: 'radiogroup', 'aria-labelledby': 'hf-payout-choose' },
    ...methods.map((m, i) =>
      el(
        'label',
        { class: 'hf-method' },
        el('input', { type: 'radio', name: 'hf-payout', value: m.id, checked: i === 0, 'data-hf-method': m.id }),
        el('span', { text: m.display_string || m.id }),
      ),
    ),
  );
  const choose = el('button', {
    type: 'button',
    class: 'hf-primary',
    'data-hf': 'payout-select',
    text: 'Pay out here',
    onclick: () => {
      const chosen = list.querySelector('input:checked');
      const method = methods.find((m) => m.id === chosen?.value);
      if (!method) {
        problem.textContent = 'Choose where to pay out.';
        return;
      }
      end(method);
    },
  });

  const email = el('input', {
    type: 'text',
    id: 'hf-payout-email',
    name: 'email',
    inputmode: 'email',
    autocomplete: 'email',
    spellcheck: 'false',
    maxlength: '254',
    'aria-describedby': 'hf-payout-email-error',
  });
  const emailError = el('p', { class: 'hf-error hf-field-error', id: 'hf-payout-email-error', 'data-hf-error': 'email' });
  const save = el('button', { type: 'submit', 'data-hf': 'payout-add', text: 'Add PayPal account' });
  const form = el(
    'form',
    { class: 'hf-form', novalidate: true, 'aria-labelledby': 'hf-payout-add' },
    el('div', { class: 'hf-field' }, el('label', { for: email.id, text: 'PayPal e-mail address' }), email, emailError),
    el('div', { class: 'hf-actions' }, save),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    emailError.textContent = '';
    email.removeAttribute('aria-invalid');
    problem.textContent = '';
    save.disabled = true;
    try {
      const { data } = await api('POST', path, { type: 'paypal', paypal: { email: email.value.trim() } });
      end(data.payload);
    } catch (err) {
      save.disabled = false;
      const errors = err.body?.payload?.errors;
      if (err.status === 400 && errors && typeof errors === 'object') {
        // The e-mail's own problems beside it; anything else (a field this form does not show) below.
        const codes = Object.entries(errors)
          .filter(([field]) => field === 'paypal.email' || field === 'paypal' || field === 'email')
          .flatMap(([, list]) => list);
        if (codes.length) {
          emailError.textContent = [...new Set(codes.map((code) => EMAIL_PROBLEMS[code] || 'This is not a valid e-mail address.'))].join(
            ' ',
          );
          email.setAttribute('aria-invalid', 'true');
          email.focus();
          return;
        }
      }
      problem.textContent = err.message;
    }
  });

  show(
    el(
      'section',
      {},
      el('h1', { text: 'Where should we pay you?' }),
      methods.length ? el('h2', { id: 'hf-payout-choose', text: 'Your PayPal accounts' }) : null,
      methods.length ? list : null,
      methods.length ? el('div', { class: 'hf-actions' }, choose) : null,
      el('h2', { id: 'hf-payout-add', text: methods.length ? 'Or add another PayPal account' : 'Add your PayPal account' }),
      form,
      problem,
      el('div', { class: 'hf-actions' }, cancelButton()),
    ),
  );
}
