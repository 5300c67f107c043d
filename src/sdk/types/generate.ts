/**
 * The SDK's types, generated from the OpenAPI documents (openapi-typescript), one file per API
 * document the SDK calls. `npm run sdk:types` writes them; a test fails when they drift.
 */
import { writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

export const SDK_DOCUMENTS = ['auth', 'invoicing', 'payments', 'payouts'] as const;

const HEADER = '// Generated from openapi/%s.yaml by `npm run sdk:types` (openapi-typescript). Do not edit.\n\n';

/** The TypeScript that `openapi/<name>.yaml` generates. */
export async function generatedTypes(name: (typeof SDK_DOCUMENTS)[number]): Promise<string> {
  const ast = await openapiTS(new URL(`../../../openapi/${name}.yaml`, import.meta.url));
  return HEADER.replace('%s', name) + astToString(ast);
}

export function typesFile(name: string): URL {
  return new URL(`./${name}.ts`, import.meta.url);
}

// `npm run sdk:types`
if (process.argv.includes('--write')) {
  for (const name of SDK_DOCUMENTS) writeFileSync(typesFile(name), await generatedTypes(name));
}
