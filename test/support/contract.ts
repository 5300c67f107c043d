/**
 * Checks every response a test receives against the OpenAPI documents: the operation must
 * declare the status, and the JSON body must match its schema. Responses of paths outside
 * the documents that are errors must still be the spec's failure envelope.
 */
import path from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadMergedDocument, openapiDir, pathMatcher, templateOrder, type OpenApiDocument } from '../../src/http/openapi.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const cache = new Map<string, ValidateFunction | null>();

let docPromise: Promise<{ doc: OpenApiDocument; routes: Array<{ template: string; matcher: RegExp }>; failure: object }> | undefined;

function load() {
  docPromise ??= (async () => {
    const doc = await loadMergedDocument();
    const common = (await $RefParser.dereference(path.join(openapiDir, 'common.yaml'))) as unknown as OpenApiDocument;
    const routes = Object.keys(doc.paths)
      // Literal paths win over templated ones, as in OpenAPI; then literal segments before parameters, as request validation orders them.
      .sort(templateOrder)
      .map((template) => ({ template, matcher: pathMatcher(template) }));
    return { doc, routes, failure: common.components!.schemas.FailureEnvelope };
  })();
  return docPromise;
}

export class ContractError extends Error {}

export async function checkResponse(method: string, url: string, res: { status: number; body: unknown; text: string }): Promise<void> {
  const { doc, routes, failure } = await load();
  const pathname = url.split('?')[0];
  const route = routes.find((r) => r.matcher.test(pathname));
  const operation = route ? doc.paths[route.template][method.toLowerCase()] : undefined;
  const key = `${method} ${route?.template ?? pathname} ${res.status}`;
  if (!operation) {
    if (res.status >= 400) validate(key, failure, res);
    return;
  }
  const response = operation.responses?.[String(res.status)] ?? operation.responses?.default;
  if (!response) throw new ContractError(`${key}: status ${res.status} is not documented (body: ${res.text.slice(0, 200)})`);
  const schema = response.content?.['application/json']?.schema;
  if (schema) validate(key, schema, res);
}

function validate(key: string, schema: object, res: { body: unknown; text: string }): void {
  let fn = cache.get(key);
  if (fn === undefined) {
    fn = ajv.compile(schema);
    cache.set(key, fn);
  }
  if (fn && !fn(res.body)) {
    throw new ContractError(
      `${key}: response does not match the OpenAPI document: ${ajv.errorsText(fn.errors)} (body: ${res.text.slice(0, 300)})`,
    );
  }
}
