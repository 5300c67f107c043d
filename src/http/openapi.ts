/**
 * The OpenAPI documents in `openapi/` are the contract and the only schema source: they are
 * served as written, dereferenced and merged into one document for request validation, and
 * read by the tests to check every response.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';

/** The project's `openapi/` folder, found from here both under tsx (src/) and after tsc (dist/src/). */
export const openapiDir = ((): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'openapi', 'common.yaml'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the openapi/ folder');
    dir = parent;
  }
  return path.join(dir, 'openapi');
})();

/** API documents (common.yaml holds shared components only). */
export const apiDocumentNames = [
  'accounts',
  'auth',
  'payments',
  'invoicing',
  'payouts',
  'disputes',
  'reports',
  'audit',
  'webhooks',
  'sandbox',
] as const;

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: parsed YAML of the OpenAPI documents, read field by field as the OpenAPI 3.1 schema defines them
  paths: Record<string, Record<string, any>>;
  // biome-ignore lint/suspicious/noExplicitAny: parsed YAML of the OpenAPI documents, read field by field as the OpenAPI 3.1 schema defines them
  components?: Record<string, any>;
  security?: unknown[];
  [key: string]: unknown;
}

/** Every YAML file served at /openapi/<name>.yaml (file name → text). */
export function servedDocuments(): Map<string, string> {
  const docs = new Map<string, string>();
  for (const file of readdirSync(openapiDir).filter((f) => f.endsWith('.yaml'))) {
    docs.set(file, readFileSync(path.join(openapiDir, file), 'utf8'));
  }
  return docs;
}

/**
 * One dereferenced document holding every path of every API document. The OAuth token URL
 * becomes absolute (`publicUrl`/token), as OpenAPI 3.1's schema requires of a merged document.
 */
export async function loadMergedDocument(publicUrl = 'http://localhost:3000'): Promise<OpenApiDocument> {
  const merged: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 'Holdfast', version: '1.0.0' },
    paths: {},
    components: { securitySchemes: {} },
  };
  const documents: OpenApiDocument[] = [];
  for (const name of apiDocumentNames) {
    const doc = (await $RefParser.dereference(path.join(openapiDir, `${name}.yaml`))) as unknown as OpenApiDocument;
    documents.push(doc);
    for (const [route, item] of Object.entries(doc.paths ?? {})) {
      if (merged.paths[route]) throw new Error(`OpenAPI path ${route} is defined in two documents`);
      // Operations without their own `security` inherit the document's.
      for (const op of Object.values(item)) {
        if (op && typeof op === 'object' && 'responses' in op && op.security === undefined && doc.security) {
          op.security = doc.security;
        }
      }
      merged.paths[route] = item;
    }
  }
  merged.components!.securitySchemes = mergedSecuritySchemes(documents, publicUrl);
  return merged;
}

/**
 * Each document declares the security schemes its own operations use, an OAuth scheme with
 * only its own scopes: the merged document takes each scheme once, with the scopes of all.
 */
// biome-ignore lint/suspicious/noExplicitAny: security scheme objects of the parsed documents
function mergedSecuritySchemes(documents: OpenApiDocument[], publicUrl: string): Record<string, any> {
  // biome-ignore lint/suspicious/noExplicitAny: parsed YAML of the OpenAPI documents, read field by field as the OpenAPI 3.1 schema defines them
  const schemes: Record<string, any> = {};
  for (const doc of documents) {
    // biome-ignore lint/suspicious/noExplicitAny: parsed YAML of the OpenAPI documents, read field by field as the OpenAPI 3.1 schema defines them
    for (const [name, scheme] of Object.entries<any>(doc.components?.securitySchemes ?? {})) {
      const seen = schemes[name];
      if (!seen) schemes[name] = structuredClone(scheme);
      else if (seen.flows?.clientCredentials && scheme.flows?.clientCredentials) {
        Object.assign(seen.flows.clientCredentials.scopes, scheme.flows.clientCredentials.scopes);
      }
    }
  }
  const flow = schemes.svc_auth?.flows?.clientCredentials;
  if (flow) flow.tokenUrl = new URL(flow.tokenUrl, `${publicUrl}/`).toString();
  return schemes;
}

export const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

/**
 * The order in which path templates are tried against a request that could match several: literal
 * paths first (`/v1/user-info/search` before `/v1/user-info/{account_id}`), then, segment by
 * segment from the left, a literal segment before a parameter (`/v2/exports/{kind}` before
 * `/v2/{account_id}/payouts`: an account id is never `exports`). A comparator for `sort`.
 */
export function templateOrder(a: string, b: string): number {
  const literal = Number(a.includes('{')) - Number(b.includes('{'));
  if (literal !== 0) return literal;
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i += 1) {
    const pa = sa[i].startsWith('{');
    const pb = sb[i].startsWith('{');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
}

/** Turns an OpenAPI path template into a matcher (`{id}` matches one non-empty segment). */
export function pathMatcher(template: string): RegExp {
  const pattern = template
    .split('/')
    .map((seg) => (/^\{[^}]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}$`);
}
