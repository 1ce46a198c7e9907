/**
 * How `use:` plugins and providers are found: next to the config file first (the user's
 * project), then among the CLI's own dependencies.
 */
import { type Importer } from '@switchyard/core/config';
import { importerFrom } from '@switchyard/core/internal';

export function cliImporter(configDir: string): Importer {
  const fromConfig = importerFrom(configDir);
  return async (specifier) => {
    try {
      return await fromConfig(specifier);
    } catch (first) {
      try {
        return (await import(specifier)) as Record<string, unknown>;
      } catch {
        throw first;
      }
    }
  };
}
