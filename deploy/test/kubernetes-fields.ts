/**
 * Unknown fields in Kubernetes manifests. The OpenAPI schemas accept any extra property (the API
 * server drops or, with strict field validation, rejects it), so a misspelt `readinesProbe`
 * passes `validate()`. kubernetes-models also ships the same schemas as TypeScript interfaces:
 * checking each manifest as an object literal against its interface reports every property the
 * schema does not define (TypeScript's excess property check).
 */
import path from 'node:path';
import ts from 'typescript';

export interface Manifest {
  file: string;
  doc: Record<string, unknown>;
}

/** The interface name and module of each kind, e.g. Deployment → IDeployment from kubernetes-models/apps/v1. */
function typeOf(doc: Record<string, unknown>): { name: string; module: string } {
  const apiVersion = String(doc.apiVersion);
  return { name: `I${String(doc.kind)}`, module: `kubernetes-models/${apiVersion}` };
}

/** One line per problem: `<file>: <message>`; empty when every manifest only uses known fields. */
export function unknownFields(manifests: Manifest[], root: string): string[] {
  const imports = [...new Set(manifests.map((m) => JSON.stringify(typeOf(m.doc))))].map((t) => JSON.parse(t) as { name: string; module: string });
  const lines = [
    ...imports.map((t) => `import type { ${t.name} } from '${t.module}';`),
    ...manifests.map((m, i) => `// ${m.file}\nexport const manifest${i}: ${typeOf(m.doc).name} = ${JSON.stringify(m.doc, null, 1)};`),
  ];
  const file = path.join(root, 'deploy/test/__kubernetes-manifests__.ts');
  const source = lines.join('\n');
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, types: [] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => (path.resolve(name) === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const starts = manifests.map((_, i) => source.indexOf(`export const manifest${i}:`));
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const at = d.start ?? 0;
    const index = starts.findLastIndex((s) => s <= at);
    return `${manifests[index]?.file ?? '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}
