/** `pnpm demo`: runs the same demo as `switchyard demo`, from source. */
import { runDemo } from '@switchyard/cli/demo';

await runDemo({ out: process.stdout });
