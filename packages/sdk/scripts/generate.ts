/**
 * The SDK's generated sources, from the OpenAPI documents: the types (openapi-typescript), one
 * file per API document, and the server entry's table of operations with a typed method per
 * operationId. `npm run sdk:types` (at the repository's root) writes them; a test fails when they
 * drift.
 */
import { writeFileSync } from 'node:fs';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import openapiTS, { astToString } from 'openapi-typescript';

export const SDK_DOCUMENTS = [
  'accounts',
  'audit',
  'auth',
  'disputes',
  'invoicing',
  'payments',
  'payouts',
  'reports',
  'sandbox',
  'webhooks',
] as const;
type DocumentName = (typeof SDK_DOCUMENTS)[number];

const HEADER = '// Generated from openapi/%s.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.\n\n';

const openapiFile = (name: string) => new URL(`../../../openapi/${name}.yaml`, import.meta.url);

/** The TypeScript that `openapi/<name>.yaml` generates. */
export async function generatedTypes(name: DocumentName): Promise<string> {
  const ast = await openapiTS(openapiFile(name), { defaultNonNullable: false });
  return HEADER.replace('%s', name) + astToString(ast);
}

export function typesFile(name: string): URL {
  return new URL(`../src/types/${name}.ts`, import.meta.url);
}

export const operationsFile = new URL('../src/server/operations.ts', import.meta.url);

/** Operations the server entry does not wrap: the token is the client's own business. */
const SKIPPED = new Set(['issueToken']);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { maximum?: number };
}

/** The server entry's operations: what each is called, where it lives, how it pages. */
export async function generatedOperations(): Promise<string> {
  const rows: string[] = [];
  const methods: string[] = [];
  const types: string[] = [];
  for (const name of SDK_DOCUMENTS) {
    // biome-ignore lint/suspicious/noExplicitAny: parsed YAML of the OpenAPI documents, read field by field as OpenAPI 3.1 defines them
    const doc = (await $RefParser.dereference(decodeURIComponent(openapiFile(name).pathname))) as any;
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of METHODS) {
        // biome-ignore lint/suspicious/noExplicitAny: an operation object of the document
        const op = item[method] as any;
        if (!op?.operationId || SKIPPED.has(op.operationId)) continue;
        const id: string = op.operationId;
        const params: Parameter[] = [...((item.parameters as Parameter[]) ?? []), ...(op.parameters ?? [])];
        const query = params.filter((p) => p.in === 'query');
        const offset = query.find((p) => p.name === 'offset');
        const paging = offset ? 'offset' : query.some((p) => p.name === 'starting_after') ? 'cursor' : null;
        const success = Object.entries<{ content?: Record<string, unknown> }>(op.responses ?? {}).filter(([status]) => /^2/.test(status));
        const text = success.some(([, r]) => r.content && !r.content['application/json']);
        const hasPath = params.some((p) => p.in === 'path');
        const bodyRequired = op.requestBody?.required === true;
        const form = op.requestBody && !op.requestBody.content?.['application/json'];
        const keyed = params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
        rows.push(
          `  ${id}: { method: '${method.toUpperCase()}', path: '${path}'${paging ? `, paging: '${paging}'` : ''}${
            offset?.schema?.maximum !== undefined ? `, maxOffset: ${offset.schema.maximum}` : ''
          }${keyed ? ', idempotent: true' : ''}${text ? ', text: true' : ''}${form ? ', form: true' : ''} },`,
        );
        types.push(`  ${id}: ${name}['${id}'];`);
        const summary = String(op.summary ?? id).replace(/\*\//g, '* /');
        const optional = !hasPath && !bodyRequired;
        const returns = text ? 'Promise<TextStream>' : `Promise<PayloadOf<'${id}'>>`;
        methods.push(
          `  /** ${summary} (\`${method.toUpperCase()} ${path}\`${op.deprecated ? ', deprecated' : ''}). */\n` +
            `  ${id}(input${optional ? '?' : ''}: InputOf<'${id}'>, options?: CallOptions): ${returns} {\n` +
            `    return this.${text ? 'stream' : 'invoke'}('${id}', (input ?? {}) as InputOf<'${id}'>, options);\n  }`,
        );
      }
    }
  }
  const imports = SDK_DOCUMENTS.filter((name) => types.some((t) => t.includes(`: ${name}[`)))
    .map((name) => `import type { operations as ${name} } from '../types/${name}.js';`)
    .join('\n');
  return `// Generated from the OpenAPI documents by \`npm run sdk:types\`. Do not edit.

${imports}
import type { CallOptions, InputOf, PayloadOf, TextStream } from './typing.js';

/** Every operation's type, as openapi-typescript writes it, by operationId. */
export interface Operations {
${types.join('\n')}
}

export type OperationId = keyof Operations;

export interface OperationInfo {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** How its list pages: \`limit\`/\`offset\` (up to \`maxOffset\`) or a \`starting_after\` cursor. */
  paging?: 'offset' | 'cursor';
  maxOffset?: number;
  /** It takes an \`Idempotency-Key\` (every write does). */
  idempotent?: boolean;
  /** It answers a file (text), not JSON. */
  text?: boolean;
  /** Its body is a form, not JSON. */
  form?: boolean;
}

export const OPERATIONS: Record<OperationId, OperationInfo> = {
${rows.join('\n')}
};

/** A method per operation; each answers the envelope's \`payload\` (or the bare answer) and throws a HoldfastError otherwise. */
export abstract class OperationMethods {
  protected abstract invoke<K extends OperationId>(id: K, input: InputOf<K>, options?: CallOptions): Promise<PayloadOf<K>>;
  protected abstract stream<K extends OperationId>(id: K, input: InputOf<K>, options?: CallOptions): Promise<TextStream>;

${methods.join('\n\n')}
}
`;
}

// `npm run sdk:types`
if (process.argv.includes('--write')) {
  for (const name of SDK_DOCUMENTS) writeFileSync(typesFile(name), await generatedTypes(name));
  writeFileSync(operationsFile, await generatedOperations());
}
