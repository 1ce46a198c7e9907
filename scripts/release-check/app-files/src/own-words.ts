// A third-party plugin with words of its own, from the published packages' public entry only: an
// error code, an event and a hook it publishes, which a second plugin taps without importing the
// first one (both import the hooks' definition). No core change, no cast.
import { createPipeline, defineErrorCodes, defineHooks, definePlugin, errorCodeInfo, STAGE, SwitchyardError, type CodesOf } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { SyncHook } from 'tapable';

const OWNER = '@acme/switchyard-tagger';

export const TAGGER_ERRORS = defineErrorCodes(OWNER, { ACME_ERR_UNTAGGED: { kind: 'invalid-request', status: 422 } });

export interface Tagged {
  requestId: string;
  model: string;
}

export const TAGGER_HOOKS = defineHooks(OWNER, () => ({ tagged: new SyncHook<[Tagged]>(['tagged']) }));

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof TAGGER_ERRORS> {}
  interface SwitchyardEvents {
    'tagger:tagged': [Tagged];
  }
}

const tagger = definePlugin({
  name: OWNER,
  core: '^0.1.0',
  apply(pipeline) {
    pipeline.hooks.classify.tap({ name: OWNER, stage: STAGE.FIRST }, (classification, ctx) => {
      const tagged: Tagged = { requestId: ctx.id, model: ctx.model };
      TAGGER_HOOKS.of(pipeline).tagged.call(tagged);
      pipeline.events.emit('tagger:tagged', tagged);
      if (ctx.model === 'untagged') throw new SwitchyardError('invalid-request', 'requests to this model need a tag', { code: TAGGER_ERRORS.ACME_ERR_UNTAGGED, retryable: false });
      return classification;
    });
  },
});

const audited: Tagged[] = [];
const auditor = definePlugin({
  name: '@acme/switchyard-auditor',
  core: '^0.1.0',
  apply(pipeline) {
    TAGGER_HOOKS.of(pipeline).tagged.tap('@acme/switchyard-auditor', (tagged) => void audited.push(tagged));
  },
});

// Nothing listens on port 9: an attempt that got past classify fails at once, on loopback.
const pipeline = createPipeline({
  endpoints: [{ name: 'nowhere', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-example' }],
  models: { chat: [{ endpoint: 'nowhere', model: 'gpt-4o-mini' }], untagged: [{ endpoint: 'nowhere', model: 'gpt-4o-mini' }] },
  plugins: [...openai, auditor(), tagger()],
});
const events: Tagged[] = [];
pipeline.events.on('tagger:tagged', (tagged) => events.push(tagged));
const ask = (model: string) => pipeline.chat({ model, messages: [{ role: 'user', content: 'hi' }] }).then(
  () => 'answered',
  (error: SwitchyardError) => error.code,
);
const outcomes = [await ask('chat'), await ask('untagged')];
const code = TAGGER_ERRORS.ACME_ERR_UNTAGGED;
console.log(`own words: hook tapped ${audited.length}, event ${events.length}, outcomes ${outcomes.join(' ')}, ${code} is HTTP ${errorCodeInfo(code)?.status}`);
await pipeline.close();
