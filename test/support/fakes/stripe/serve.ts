/**
 * Runs the Stripe fake on its own, for trying Holdfast's Stripe adapters by hand:
 * `node --import tsx test/support/fakes/stripe/serve.ts` (STRIPE_FAKE_PORT, STRIPE_FAKE_WEBHOOK_URL,
 * STRIPE_FAKE_WEBHOOK_SECRET); it prints the variables to give Holdfast and runs until interrupted.
 */
import { startStripeFake } from './stripe-fake.js';

const webhookUrl = process.env.STRIPE_FAKE_WEBHOOK_URL;
const webhookSecret = process.env.STRIPE_FAKE_WEBHOOK_SECRET ?? 'whsec_stripe_fake';
const fake = await startStripeFake({
  port: Number(process.env.STRIPE_FAKE_PORT ?? 0),
  webhooks: webhookUrl ? [{ url: webhookUrl, secret: webhookSecret }] : [],
});
console.log(`STRIPE_API_BASE=${fake.url}`);
console.log(`STRIPE_SECRET_KEY=${fake.secretKey}`);
console.log(`STRIPE_WEBHOOK_SECRET=${webhookSecret}`);
console.log(`STRIPE_JS_URL=${fake.jsUrl}`);
console.log(`# publishable key for the browser library: ${fake.publishableKey}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void fake.stop().then(() => process.exit(0));
  });
}
