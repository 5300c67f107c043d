/** The response envelope of spec §2.1. */
export interface Envelope<T = unknown> {
  status: 'Success' | 'Failure';
  message: string[];
  codes: string[];
  payload: T;
}

export function success<T>(payload: T): Envelope<T> {
  return { status: 'Success', message: [], codes: [], payload };
}

export function failure<T>(message: string[], codes: string[], payload: T): Envelope<T> {
  return { status: 'Failure', message, codes, payload };
}
