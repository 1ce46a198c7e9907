/** `switchyard simulate`: the accelerated long-run stability simulation of a scenario file. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadPlugins, loadProviders } from '@switchyard/core/internal';
import type { SimulationProgress } from '@switchyard/simulate';
import { EXIT, type Output } from '../io.js';
import { formatError } from '../format-error.js';
import { cliImporter } from '../importer.js';
import { defaultScenarioPath } from '../package-files.js';
import type { Command } from '../command.js';

function progressBar(out: Output, interactive: boolean): (p: SimulationProgress) => void {
  let lastTenth = -1;
  return (p) => {
    const pct = Math.floor(p.fraction * 100);
    if (interactive) {
      const filled = Math.round(p.fraction * 30);
      out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${String(pct).padStart(3)}%  ${p.requests} requests, ${p.succeeded} ok, ${(p.wallMs / 1000).toFixed(1)} s`);
      if (p.fraction >= 1) out.write('\n');
    } else if (Math.floor(pct / 10) > lastTenth) {
      lastTenth = Math.floor(pct / 10);
      out.write(`${pct}%  ${p.requests} requests\n`);
    }
  };
}

export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'Run weeks of simulated traffic and vendor faults through the real pipeline in seconds',
  help: `Usage: switchyard simulate [--scenario <file>] [--html <file>] [--json <file>] [--min-success <percent>]

Runs a scenario (endpoints, fault schedules, request rate, duration in simulated time) through
the real pipeline and policy plugins on virtual time, with an in-process transport built from
the fault models of @switchyard/simulate: no HTTP, so twenty simulated days finish in well under a minute.
Prints the report: success rate (overall and while at least one endpoint was up), failures by
kind, endpoint share over time, failovers, breaker trips, latency percentiles, attempts per
request and upstream amplification, degraded answers, with text sparklines.
Exits 1 when --min-success is given and the success rate while any endpoint was up is below it.

Options:
  -s, --scenario <file>   the scenario (YAML or JSON); default: the bundled twenty-days.yaml
                          (20 days, brownouts, an outage, 429 bursts, a key out of balance)
      --html <file>       also write a self-contained HTML chart
      --json <file>       also write the report as JSON
      --min-success <p>   required success % while any endpoint was up (e.g. 99.9)
      --no-progress       no progress bar
  -h, --help              show this help`,
  options: {
    scenario: { type: 'string', short: 's' },
    html: { type: 'string' },
    json: { type: 'string' },
    'min-success': { type: 'string' },
    'no-progress': { type: 'boolean' },
  },
  async run(values, io) {
    const minSuccess = values['min-success'] === undefined ? undefined : Number(values['min-success']);
    if (minSuccess !== undefined && !(minSuccess > 0 && minSuccess <= 100)) {
      io.err.write(`error: --min-success must be a percentage between 0 and 100, got "${String(values['min-success'])}"\n`);
      return EXIT.USAGE;
    }
    try {
      // Loaded on use: the simulator (and msw under it) is not part of what `serve` holds.
      const { formatReport, loadScenarioFile, renderReportHtml, runSimulation } = await import('@switchyard/simulate');
      const file = typeof values.scenario === 'string' ? path.resolve(io.cwd, values.scenario) : defaultScenarioPath();
      const scenario = await loadScenarioFile(file);
      const importer = cliImporter(path.dirname(file));
      const providers = await loadProviders({ endpoints: scenario.endpoints.map((e) => ({ name: e.name, provider: e.provider })) }, importer);
      const plugins = await loadPlugins(scenario.plugins, importer);
      const interactive = Boolean((io.err as { isTTY?: boolean }).isTTY);
      const report = await runSimulation(scenario, { providers, plugins, onProgress: values['no-progress'] ? undefined : progressBar(io.err, interactive) });
      io.out.write(`${formatReport(report, { target: minSuccess === undefined ? undefined : minSuccess / 100 })}\n`);
      if (typeof values.html === 'string') {
        await writeFile(path.resolve(io.cwd, values.html), renderReportHtml(report));
        io.out.write(`chart written to ${values.html}\n`);
      }
      if (typeof values.json === 'string') await writeFile(path.resolve(io.cwd, values.json), JSON.stringify(report, null, 2));
      if (minSuccess !== undefined && report.whileAnyUp.successRate * 100 < minSuccess) {
        io.err.write(`error: success while any endpoint was up was ${(report.whileAnyUp.successRate * 100).toFixed(3)}%, below the required ${minSuccess}%\n`);
        return EXIT.FAILED;
      }
      return EXIT.OK;
    } catch (error) {
      io.err.write(formatError(error, []));
      return EXIT.FAILED;
    }
  },
};
