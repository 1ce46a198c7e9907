/** @switchyard/chaos: the msw → undici bridge and msw fault handlers, over the fault model of @switchyard/simulate (re-exported). */
export { createMswDispatcher, MswDispatcher, type HandlerSource } from './msw-dispatcher.js';
export { faults, vendorFaults, faultHandler, toFaultRequest, type FaultHandler, type FaultMethods, type VendorFaults, type VendorFaultsOptions } from './msw-faults.js';
export { planToResponse } from './plan-response.js';
export * from '@switchyard/simulate';
