#!/usr/bin/env node
import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`switchyard: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
