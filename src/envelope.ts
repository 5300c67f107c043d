/**
 * The envelope every answer carries (`status`, `message`, `codes`, `payload`), built here for
 * both the HTTP layer and the workers: a command's stored result is the very body its request gets.
 */
export interface Envelope<T = unknown> {
  status: 'Success' | 'Failure';
  message: string[];
  codes: string[];
  payload: T;
}

/** A status and the body that goes with it: what a client gets, and what a command stores as its result. */
export interface Reply {
  status: number;
  body: unknown;
}

export function success<T>(payload: T): Envelope<T> {
  return { status: 'Success', message: [], codes: [], payload };
}

export function failure<T>(message: string[], codes: string[], payload: T): Envelope<T> {
  return { status: 'Failure', message, codes, payload };
}
