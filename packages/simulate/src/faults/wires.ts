import { SwitchyardError } from '@switchyard/core';
import type { Vendor, VendorWire } from './vendor-wire.js';
import { anthropicWire } from './wire/anthropic.js';
import { geminiWire } from './wire/gemini.js';
import { openaiWire } from './wire/openai.js';

const WIRES: Record<Vendor, VendorWire> = { openai: openaiWire, anthropic: anthropicWire, gemini: geminiWire };

export function wireFor(vendor: Vendor): VendorWire {
  const wire = WIRES[vendor];
  if (!wire) throw new SwitchyardError('config', `unknown chaos vendor "${String(vendor)}" (known: ${Object.keys(WIRES).join(', ')})`, { code: 'SWITCHYARD_ERR_CHAOS_UNKNOWN_VENDOR' });
  return wire;
}
