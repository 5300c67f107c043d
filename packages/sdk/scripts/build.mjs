// Builds the package from src/ into dist/esm (ES modules) and dist/cjs (CommonJS, marked so by
// its own package.json), file by file: each file's JavaScript is transpiled once per module
// system and its declarations once for both (src/ keeps to `isolatedDeclarations`, so no
// whole-program type check is needed here; `npm run typecheck` does that).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ts = createRequire(import.meta.url)('typescript');
const root = fileURLToPath(new URL('..', import.meta.url));
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);

const write = (file, text) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

rmSync(dist, { recursive: true, force: true });
const formats = { esm: ts.ModuleKind.ES2022, cjs: ts.ModuleKind.CommonJS };
let failed = false;
for (const file of readdirSync(src, { recursive: true }).sort()) {
  if (!file.endsWith('.ts')) continue;
  const source = readFileSync(path.join(src, file), 'utf8');
  const declaration = ts.transpileDeclaration(source, {
    fileName: path.join(src, file),
    compilerOptions: options,
    reportDiagnostics: true,
  });
  for (const d of declaration.diagnostics ?? []) {
    failed = true;
    console.error(`src/${file}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  }
  for (const [format, module] of Object.entries(formats)) {
    write(path.join(dist, format, file.replace(/\.ts$/, '.d.ts')), declaration.outputText);
    // The generated types are declarations only: nothing imports them at run time.
    if (file.startsWith(`types${path.sep}`)) continue;
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module, target: ts.ScriptTarget.ES2022, isolatedModules: true },
    });
    write(path.join(dist, format, file.replace(/\.ts$/, '.js')), outputText);
  }
}
if (failed) process.exit(1);
write(path.join(dist, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
