/**
 * @switchyard/provider-vertex: Google Vertex AI as a Switchyard provider (id `vertex`): Claude
 * through rawPredict with the Messages body, Gemini with the Gemini codec, authorised with
 * google-auth-library (service-account file, ADC, metadata server, workload identity).
 */
import { vertexProvider } from './provider.js';

export { vertexProvider, createVertexProvider } from './provider.js';
export { VERTEX_ANTHROPIC_BETAS, VERTEX_ANTHROPIC_VERSION } from './claude.js';
export { describeGoogleCredentialSource, VertexCredentials } from './auth.js';
export { vertexBaseUrl, vertexLocation, vertexProject } from './location.js';

export const providers = [vertexProvider];
export default providers;
