/** Reads a Dockerfile into stages and instructions, enough to check what it references. */
export interface Instruction {
  keyword: string;
  /** The arguments as written (continuations joined). */
  args: string;
  line: number;
}

export interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): { args: Instruction[]; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (!pending && (line.trim() === '' || line.trimStart().startsWith('#'))) return;
    if (!pending) start = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const whole = (pending + line).trim();
    pending = '';
    const [keyword, ...rest] = whole.split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), args: whole.slice(keyword.length).trim(), line: start });
  });
  const args: Instruction[] = [];
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [from, as, name] = instruction.args.split(/\s+/);
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) args.push(instruction);
    else stages.at(-1)!.instructions.push(instruction);
  }
  return { args, stages };
}

/** `["a", "b"]` (exec form) or `a b` (shell form, split on spaces). */
export function commandWords(args: string): string[] {
  return args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
}

export interface Copy {
  from?: string;
  sources: string[];
  destination: string;
}

export function parseCopy(args: string): Copy {
  const words = commandWords(args);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths.slice(0, -1), destination: paths.at(-1)! };
}
