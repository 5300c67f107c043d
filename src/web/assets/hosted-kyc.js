/*
 * The hosted KYC flow: the account's identity check. It first shows the check as it stands
 * (GET /v1/kyc/{account}); a check that takes no submission now (no `kyc_requirements`: it is
 * under way, decided, or a DENY or operator's CANCEL waiting for the operator to reopen it) is
 * only described, with nothing to submit. Otherwise a form of the five fields the check asks
 * for, sent with the session's user token (POST /v1/kyc/{account}); a 400 names the fields at
 * fault next to each one. When the verifier started a session at its provider, the answer's
 * `verification_url` is offered as the way on. The flow ends with svc.kyc.complete {state}: the
 * check's state, or `cancel` when the user leaves without submitting. Everything shown is text.
 */

/** The fields, in the order the API lists them: name, label, autocomplete hint, help. */
const FIELDS = [
  ['first_name', 'First name', 'given-name'],
  ['last_name', 'Last name', 'family-name'],
  ['date_of_birth', 'Date of birth', 'bday', 'YYYY-MM-DD, for example 1990-12-10'],
  ['address', 'Address', 'street-address'],
  ['country', 'Country', 'country', 'Two-letter code, for example GB or US'],
];

/** What each field error code of the API's 400 means to the user. */
const PROBLEMS = {
  REQUIRED: 'Fill this in.',
  TOO_LONG: 'This is too long.',
  INVALID_VALUE: 'This is not valid.',
  OUT_OF_RANGE: 'This date is not possible.',
};
const FIELD_PROBLEMS = {
  date_of_birth: { INVALID_VALUE: 'Write the date as YYYY-MM-DD.', OUT_OF_RANGE: 'Give a date of birth in the past.' },
  country: { INVALID_VALUE: 'Give the two-letter country code, such as GB.' },
};

/** The check's states as the user reads them. */
const STATES = {
  PROCESSING: 'Your identity check is being processed.',
  MANUAL_REVIEW: 'Your identity check is being reviewed. You will hear once it is decided.',
  ACCEPT: 'Your identity is verified.',
  DENY: 'Your identity could not be verified.',
  CANCEL: 'Your identity check was cancelled.',
};

/** A provider's verification page, when the API gave one (http or https only). */
const verificationLink = (url) => (typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null);

export async function kycFlow(kit) {
  const { el, show, api, notify, fatal, cancelButton, session } = kit;
  const path = `/v1/kyc/${encodeURIComponent(session.account)}`;

  /** The check as it stands, with the Done button that ends the flow with its state (and the provider's page, when there is one to go on to). */
  const stateScreen = (state, verificationUrl = null) =>
    show(
      el(
        'section',
        { 'data-hf': 'kyc-state', 'data-hf-state': state },
        el('h1', { text: 'Identity verification' }),
        el('p', { 'data-hf': 'kyc-message', text: STATES[state] || `Your identity check is ${state.toLowerCase()}.` }),
        el(
          'div',
          { class: 'hf-actions' },
          verificationUrl
            ? el('a', {
                class: 'hf-primary',
                'data-hf': 'kyc-verify',
                href: verificationUrl,
                target: '_top',
                rel: 'noopener noreferrer',
                text: 'Continue to verification',
              })
            : null,
          el('button', { type: 'button', class: 'hf-primary', 'data-hf': 'done', text: 'Done', onclick: () => notify({ state }) }),
        ),
      ),
    );

  const { data } = await api('GET', path);
  if (!data.payload.kyc_requirements.length) return stateScreen(data.payload.state);

  const summary = el('p', { class: 'hf-error', role: 'alert', 'data-hf': 'kyc-error' });
  const rows = FIELDS.map(([name, label, autocomplete, help]) => {
    const input = el('input', {
      type: 'text',
      id: `hf-kyc-${name}`,
      name,
      autocomplete,
      spellcheck: 'false',
      maxlength: name === 'date_of_birth' ? '10' : name === 'country' ? '2' : name === 'address' ? '300' : '100',
      'aria-describedby': [help ? `hf-kyc-${name}-help` : '', `hf-kyc-${name}-error`].filter(Boolean).join(' '),
    });
    const error = el('p', { class: 'hf-error hf-field-error', id: `hf-kyc-${name}-error`, 'data-hf-error': name });
    const row = el(
      'div',
      { class: 'hf-field' },
      el('label', { for: input.id, text: label }),
      help ? el('p', { class: 'hf-muted hf-help', id: `hf-kyc-${name}-help`, text: help }) : null,
      input,
      error,
    );
    return { name, input, error, row };
  });
  const submit = el('button', { type: 'submit', class: 'hf-primary', 'data-hf': 'kyc-submit', text: 'Submit' });
  const form = el(
    'form',
    { class: 'hf-form', novalidate: true, 'aria-labelledby': 'hf-kyc-title' },
    ...rows.map((r) => r.row),
    summary,
    el('div', { class: 'hf-actions' }, submit, cancelButton()),
  );

  /** Shows each field's problems (from the 400's `payload.errors`) next to it, and moves to the first. */
  const showProblems = (errors) => {
    let first = null;
    for (const { name, input, error } of rows) {
      const codes = Array.isArray(errors[name]) ? errors[name] : [];
      error.textContent = codes.map((code) => FIELD_PROBLEMS[name]?.[code] || PROBLEMS[code] || code).join(' ');
      if (codes.length) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
      if (codes.length && !first) first = input;
    }
    summary.textContent = first ? 'Some details need correcting.' : '';
    first?.focus();
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(rows.map(({ name, input }) => [name, input.value.trim()]));
    body.country = body.country.toUpperCase();
    submit.disabled = true;
    showProblems({});
    try {
      const { data: answer } = await api('POST', path, body);
      stateScreen(answer.payload.state, verificationLink(answer.payload.verification_url));
    } catch (err) {
      submit.disabled = false;
      const errors = err.body?.payload?.errors;
      if (err.status === 400 && errors && typeof errors === 'object') return showProblems(errors);
      // Submitted meanwhile (another tab): show the check as it now stands.
      if (err.status === 409) {
        const { data: now } = await api('GET', path);
        return stateScreen(now.payload.state);
      }
      fatal(err.message);
    }
  });

  show(
    el(
      'section',
      {},
      el('h1', { id: 'hf-kyc-title', text: 'Verify your identity' }),
      el('p', { class: 'hf-muted', text: 'We need a few details to verify who you are before money can be paid out to you.' }),
      form,
    ),
  );
  rows[0].input.focus();
}
