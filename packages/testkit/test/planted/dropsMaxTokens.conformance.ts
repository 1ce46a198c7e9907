import { runProviderConformance } from '../../src/index.js';
import { openaiSamples } from '../samples-from-fixtures.js';
import { dropsMaxTokens } from './buggy-providers.js';

runProviderConformance(dropsMaxTokens, openaiSamples);
