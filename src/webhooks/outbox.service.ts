/** Events are written through the outbox repository; this name stays for the flows that import it from here. */
export { insertEvent } from './outbox.repository.js';
