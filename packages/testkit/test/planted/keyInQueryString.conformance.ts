import { runProviderConformance } from '../../src/index.js';
import { openaiSamples } from '../samples-from-fixtures.js';
import { keyInQueryString } from './buggy-providers.js';

runProviderConformance(keyInQueryString, openaiSamples);
