/** `switchyard import FILE`: a LiteLLM or design-document config translated into a Switchyard one. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { EXIT } from '../io.js';
import type { Command } from '../command.js';
import { formatError } from '../format-error.js';
import { importConfig } from '../import/import-config.js';
import { readTextFile } from '../read-text-file.js';

export const importCommand: Command = {
  name: 'import',
  summary: "Translate a LiteLLM config.yaml or a design document's config into a Switchyard config",
  help: `Usage: switchyard import <file> [--out <file>]

Translates LiteLLM's config.yaml (model_list, router_settings, litellm_settings: retries,
timeout, cooldowns, fallbacks) or one of the design documents' configurations (endpoints with
type/base_url, ai_services with primary/backups and fault_handling, model_mapping) into a
Switchyard config: endpoints, models and the plugins that do what the file asked. Variables
stay variables (LiteLLM's os.environ/NAME becomes \${NAME}); a vendor named without a base URL
gets its default URL and \${VENDOR_API_KEY}. Writes the config on stdout (or to --out) and says
on stderr (one "note:" line each) what it could not translate or had to change. Run "switchyard validate" on the result.

Options:
  -o, --out <file>      write the config to this file instead of stdout
  -h, --help            show this help`,
  options: { out: { type: 'string', short: 'o' } },
  positionals: true,
  async run(values, io, positionals) {
    const [file, ...extra] = positionals;
    if (!file || extra.length) {
      io.err.write('error: give one file to import: switchyard import <file> [--out <file>]\n');
      return EXIT.USAGE;
    }
    try {
      const resolved = path.resolve(io.cwd, file);
      const imported = await importConfig(await readTextFile(resolved, 'file to import', 'SWITCHYARD_ERR_CONFIG_READ'), resolved);
      const yaml = `# Translated by "switchyard import" from ${path.basename(resolved)} (${imported.format}).\n${stringify(imported.config, { lineWidth: 0 })}`;
      if (typeof values.out === 'string') await writeFile(path.resolve(io.cwd, values.out), yaml);
      else io.out.write(yaml);
      for (const note of imported.notes) io.err.write(`note: ${note}\n`);
      if (typeof values.out === 'string') io.err.write(`wrote ${values.out}; check it with: switchyard validate -c ${values.out}\n`);
      return EXIT.OK;
    } catch (error) {
      io.err.write(formatError(error));
      return EXIT.FAILED;
    }
  },
};
