/**
 * @switchyard/simulate: the vendor fault model (faults/: catalogue, schedules, wires, the loopback
 * fault server) and the long-run simulation over it (discrete-event clock, in-process fault
 * transport, scenarios, report). No msw: the CLI depends on this package, not on @switchyard/chaos.
 */
// The events it observes are declared by their owners in @switchyard/contracts.
import '@switchyard/contracts';
export { createFaultModel, decideFirst, isFaultName, type FaultModel, type FaultEnv, type FaultLogEntry } from './faults/fault-model.js';
export { FAULT_NAMES, FAULT_CATALOGUE, type FaultName, type FaultOptions, type PlanInput } from './faults/fault-catalogue.js';
export { halfOf, type FaultPlan, type PlannedChunk, type PlanEnd } from './faults/fault-plan.js';
export { always, between, flapping, brownout, firstN, allOf, anyOf, not, fixed, uniform, lognormal, toLatency, type Schedule, type ScheduleInput, type Latency } from './faults/schedules.js';
export { healthyText, healthyTokens, DEFAULT_TOKENS } from './faults/healthy-text.js';
export { wireFor } from './faults/wires.js';
export { VENDORS, type Vendor, type VendorWire, type FaultRequest, type WireContext, type WireErrorName, type WireErrorOptions, type WireResponse, type WireStreamAnswer } from './faults/vendor-wire.js';
export { startFaultServer, type FaultServer, type FaultServerOptions, type RecordedRequest } from './faults/fault-server.js';
export * from './simulation.js';
