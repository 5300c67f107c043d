/**
 * The stand-in of Stripe's browser library (`https://js.stripe.com/v3/`) the fake serves at `/v3/`.
 * It supports what a hosted card page needs and nothing more:
 * - `Stripe(publishableKey)`; `stripe.elements().create('card')` with `mount(selectorOrNode)`, `on('change')`,
 *   `unmount()`, `destroy()`, `clear()`: three plain inputs (number, `MM / YY`, CVC) marked `data-stripe-fake`;
 * - `stripe.createPaymentMethod({type:'card', card: element, billing_details})` → `{paymentMethod}` or `{error}`:
 *   the number picks the test card (4242…, 4000000000000002, 4000002760003184, …), any other number → incorrect_number;
 * - `stripe.confirmCardPayment(clientSecret, {payment_method, return_url}, {handleActions})` and
 *   `stripe.handleNextAction({clientSecret})` / `handleCardAction(clientSecret)`: a `redirect_to_url` next action
 *   navigates the page to the fake's 3-D Secure page (the real library opens a modal instead; this one redirects
 *   and the promise does not settle), which returns to `return_url` with `payment_intent`, `redirect_status`;
 * - `stripe.retrievePaymentIntent(clientSecret)`.
 * Every call is a real request to the fake's `/v1` API with the publishable key, as Stripe.js makes.
 */
export function browserLibrarySource(apiBase: string): string {
  return `/* Stripe fake: a stand-in of Stripe.js v3 for tests (test/support/fakes/stripe/browser-library.ts). */
(function () {
  'use strict';
  var API = ${JSON.stringify(apiBase)};

  function encode(value, prefix, out) {
    if (value === undefined || value === null) return out;
    if (typeof value === 'object') {
      Object.keys(value).forEach(function (k) { encode(value[k], prefix ? prefix + '[' + k + ']' : k, out); });
      return out;
    }
    out.push(encodeURIComponent(prefix) + '=' + encodeURIComponent(String(value)));
    return out;
  }

  function call(key, method, path, params) {
    var body = encode(params || {}, '', []).join('&');
    var url = API + path + (method === 'GET' && body ? '?' + body : '');
    return fetch(url, {
      method: method,
      headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: method === 'GET' ? undefined : body,
    }).then(function (res) {
      return res.json().then(function (json) { return { ok: res.ok, json: json }; });
    }, function (err) {
      return { ok: false, json: { error: { type: 'api_connection_error', message: String(err && err.message || err) } } };
    });
  }

  function intentId(clientSecret) { return String(clientSecret).split('_secret_')[0]; }

  function CardElement() { this.node = null; this.inputs = null; this.handlers = {}; }
  CardElement.prototype.mount = function (target) {
    var host = typeof target === 'string' ? document.querySelector(target) : target;
    if (!host) throw new Error('Stripe fake: nothing to mount the card element on: ' + target);
    var self = this;
    var make = function (name, placeholder, autocomplete) {
      var input = document.createElement('input');
      input.setAttribute('data-stripe-fake', name);
      input.setAttribute('placeholder', placeholder);
      input.setAttribute('autocomplete', autocomplete);
      input.setAttribute('inputmode', 'numeric');
      input.addEventListener('input', function () { self.emit('change', self.state()); });
      return input;
    };
    this.inputs = {
      number: make('number', 'Card number', 'cc-number'),
      expiry: make('expiry', 'MM / YY', 'cc-exp'),
      cvc: make('cvc', 'CVC', 'cc-csc'),
    };
    this.node = document.createElement('div');
    this.node.className = 'StripeElement';
    this.node.appendChild(this.inputs.number);
    this.node.appendChild(this.inputs.expiry);
    this.node.appendChild(this.inputs.cvc);
    host.appendChild(this.node);
    this.emit('ready', {});
  };
  CardElement.prototype.state = function () {
    var number = this.inputs.number.value.replace(/[\\s-]/g, '');
    return { elementType: 'card', empty: number === '', complete: number.length >= 14 && /\\d{1,2}\\s*\\/\\s*\\d{2,4}/.test(this.inputs.expiry.value) && this.inputs.cvc.value.length >= 3, error: undefined };
  };
  CardElement.prototype.details = function () {
    var parts = this.inputs.expiry.value.split('/');
    var year = parseInt((parts[1] || '').trim(), 10);
    return {
      number: this.inputs.number.value.replace(/[\\s-]/g, ''),
      exp_month: parseInt((parts[0] || '').trim(), 10) || undefined,
      exp_year: year ? (year < 100 ? 2000 + year : year) : undefined,
      cvc: this.inputs.cvc.value || undefined,
    };
  };
  CardElement.prototype.on = function (event, handler) { (this.handlers[event] = this.handlers[event] || []).push(handler); return this; };
  CardElement.prototype.emit = function (event, payload) { (this.handlers[event] || []).forEach(function (h) { h(payload); }); };
  CardElement.prototype.clear = function () { if (this.inputs) { this.inputs.number.value = ''; this.inputs.expiry.value = ''; this.inputs.cvc.value = ''; } };
  CardElement.prototype.focus = function () { if (this.inputs) this.inputs.number.focus(); };
  CardElement.prototype.unmount = function () { if (this.node && this.node.parentNode) this.node.parentNode.removeChild(this.node); };
  CardElement.prototype.destroy = CardElement.prototype.unmount;
  CardElement.prototype.update = function () {};

  function Stripe(publishableKey) {
    if (!(this instanceof Stripe)) return new Stripe(publishableKey);
    if (!/^pk_/.test(String(publishableKey))) throw new Error('Stripe fake: a publishable key (pk_…) is required');
    this.key = publishableKey;
  }
  Stripe.prototype.elements = function () {
    var created = {};
    return {
      create: function (type) {
        if (type !== 'card') throw new Error('Stripe fake: only the card element is supported, not ' + type);
        return (created[type] = new CardElement());
      },
      getElement: function (type) { return created[type] || null; },
    };
  };
  Stripe.prototype.createPaymentMethod = function (a, b, c) {
    var params = typeof a === 'string' ? { type: a, card: b, billing_details: c && c.billing_details } : a;
    var details = params.card && params.card.details ? params.card.details() : params.card;
    return call(this.key, 'POST', '/v1/payment_methods', { type: 'card', card: details, billing_details: params.billing_details })
      .then(function (r) { return r.ok ? { paymentMethod: r.json } : { error: r.json.error }; });
  };
  Stripe.prototype.retrievePaymentIntent = function (clientSecret) {
    return call(this.key, 'GET', '/v1/payment_intents/' + intentId(clientSecret), { client_secret: clientSecret })
      .then(function (r) { return r.ok ? { paymentIntent: r.json } : { error: r.json.error }; });
  };
  Stripe.prototype.followNextAction = function (intent, handleActions) {
    var action = intent.next_action;
    if (intent.status === 'requires_action' && action && action.type === 'redirect_to_url' && handleActions !== false) {
      window.location.assign(action.redirect_to_url.url);
      return new Promise(function () {});
    }
    return Promise.resolve({ paymentIntent: intent });
  };
  Stripe.prototype.confirmCardPayment = function (clientSecret, data, options) {
    var self = this;
    data = data || {};
    var pm = data.payment_method;
    var start = pm && typeof pm === 'object'
      ? self.createPaymentMethod({ type: 'card', card: pm.card, billing_details: pm.billing_details }).then(function (r) {
          if (r.error) throw r;
          return r.paymentMethod.id;
        })
      : Promise.resolve(pm);
    return start.then(function (pmId) {
      return call(self.key, 'POST', '/v1/payment_intents/' + intentId(clientSecret) + '/confirm', {
        client_secret: clientSecret,
        payment_method: pmId,
        return_url: data.return_url || window.location.href,
      });
    }).then(function (r) {
      if (!r.ok) return { error: r.json.error, paymentIntent: r.json.error && r.json.error.payment_intent };
      return self.followNextAction(r.json, options && options.handleActions);
    }, function (failed) { return failed; });
  };
  Stripe.prototype.handleNextAction = function (params) {
    var self = this;
    return this.retrievePaymentIntent(params.clientSecret).then(function (r) {
      return r.error ? r : self.followNextAction(r.paymentIntent, true);
    });
  };
  Stripe.prototype.handleCardAction = function (clientSecret) { return this.handleNextAction({ clientSecret: clientSecret }); };

  window.Stripe = Stripe;
})();
`;
}
