import { runProviderConformance } from '../../src/index.js';
import { openaiSamples } from '../samples-from-fixtures.js';
import { systemAsUser } from './buggy-providers.js';

runProviderConformance(systemAsUser, openaiSamples);
