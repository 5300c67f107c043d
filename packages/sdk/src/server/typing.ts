/**
 * What an operation takes and answers, derived from the types openapi-typescript generates
 * from the OpenAPI documents.
 */
import type { OperationId, Operations } from './operations.js';

type Op<K extends OperationId> = Operations[K];
type Params<O> = O extends { parameters: infer P } ? P : never;
type Defined<T> = [Exclude<T, undefined>] extends [never] ? undefined : Exclude<T, undefined>;
type PathOf<O> = Params<O> extends { path: infer P } ? Defined<P> : undefined;
type QueryOf<O> = Params<O> extends { query?: infer Q } ? Defined<Q> : undefined;
type ContentOf<C> = C extends { 'application/json': infer B } ? B : C extends { 'application/x-www-form-urlencoded': infer F } ? F : never;
type BodyOf<O> = O extends { requestBody?: infer R }
  ? [Exclude<R, undefined>] extends [never]
    ? undefined
    : Exclude<R, undefined> extends { content: infer C }
      ? ContentOf<C>
      : undefined
  : undefined;
type BodyRequired<O> = O extends { requestBody: { content: unknown } } ? true : false;
type Field<Name extends string, T, Required extends boolean> = [T] extends [undefined]
  ? { [k in Name]?: never }
  : Required extends true
    ? { [k in Name]: T }
    : { [k in Name]?: T };

/** An operation's input: its path parameters, query and body, as the OpenAPI document names them. */
export type InputOf<K extends OperationId> = Field<'path', PathOf<Op<K>>, true> &
  Field<'query', QueryOf<Op<K>>, false> &
  Field<'body', BodyOf<Op<K>>, BodyRequired<Op<K>>>;

type Responses<O> = O extends { responses: infer R } ? R : never;
type SuccessStatus = 200 | 201 | 202 | 204;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;

/** The JSON an operation answers when it succeeds (every 2xx, as a union). */
export type ResultOf<K extends OperationId> = {
  [S in keyof Responses<Op<K>> & SuccessStatus]: JsonOf<Responses<Op<K>>[S]>;
}[keyof Responses<Op<K>> & SuccessStatus];

type Unwrap<B> = B extends { codes: string[]; payload?: infer P } ? Exclude<P, undefined> : B;

/** What a method answers: the envelope's `payload`, or the body itself where the operation answers bare. */
export type PayloadOf<K extends OperationId> = Unwrap<ResultOf<K>>;

/** Per-call options. */
export interface CallOptions {
  /** The `Idempotency-Key` of a write (default: a new random one, reused on this call's retries). */
  idempotencyKey?: string;
  /** More request headers (`Prefer: respond-async`, say). */
  headers?: Record<string, string>;
  /** Cancels the call, retries included. */
  signal?: AbortSignal;
}

/** A file answer (an export), read as it arrives. */
export interface TextStream extends AsyncIterable<string> {
  /** Its media type (`text/csv`, `application/x-ndjson`). */
  readonly contentType: string;
  /** The whole file as one string (read only once, like the iteration). */
  text(): Promise<string>;
}
