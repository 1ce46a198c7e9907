export { switchyard, type SwitchyardProvider, type SwitchyardProviderSettings } from './provider.js';
export { toChatRequest, type ConvertedCall, type SwitchyardProviderOptions, type Unsupported } from './prompt.js';
export { v2, v3, type Dialect, type SpecificationVersion } from './dialects.js';
export { toAiSdkError } from './errors.js';
