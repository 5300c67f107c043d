/**
 * The `--import` hook `npm start`, the worker entry and the Procfile run before the app:
 * `node --import tsx --import ./src/runtime/tracing-register.ts src/server.ts`. Under ES modules
 * the instrumentations take hold only when registered before the modules they patch load. With
 * tracing off (no OTLP endpoint variable) it returns at once and loads nothing else.
 */
import { tracingWanted } from './tracing-hooks.js';

if (tracingWanted(process.env)) {
  const { startTracing } = await import('./tracing.js');
  await startTracing();
}
