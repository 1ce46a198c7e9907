#!/usr/bin/env node
// Entry point of the production bundle: `node <bundle>/bin.js serve --config <file>`.
// The bundle's node_modules is flat (hoisted), so the CLI's own `import(specifier)` of a `use:`
// plugin finds every package listed in this folder's package.json.
import { main } from '@switchyard/cli';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`switchyard: unexpected failure: ${error?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
