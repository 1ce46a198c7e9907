/** One AI SDK language model over one logical model of a pipeline. */
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import type { ChatResult, Pipeline } from '@switchyard/core';
import type { Dialect, SpecificationVersion } from './dialects.js';
import { toAiSdkError } from './errors.js';
import { toChatRequest } from './prompt.js';
import { toStreamParts } from './stream-parts.js';

/** Switchyard's own answer data, under `providerMetadata.switchyard`. */
function metadata(info: ChatResult['switchyard'] | object): Record<string, Record<string, string | number | boolean>> {
  return { switchyard: JSON.parse(JSON.stringify(info)) as Record<string, string | number | boolean> };
}

export class SwitchyardLanguageModel<F, U, W> {
  readonly provider = 'switchyard';
  // Images by URL pass through to the vendor, which fetches them itself.
  readonly supportedUrls: Record<string, RegExp[]> = { 'image/*': [/^https?:\/\/.*$/] };

  constructor(
    readonly specificationVersion: SpecificationVersion,
    readonly modelId: string,
    private readonly pipeline: Pipeline,
    private readonly dialect: Dialect<F, U, W>,
  ) {}

  async doGenerate(options: LanguageModelV3CallOptions) {
    const { request, unsupported } = toChatRequest(this.modelId, options);
    let answer: ChatResult;
    try {
      answer = await this.pipeline.chat(request, { signal: options.abortSignal });
    } catch (error) {
      throw toAiSdkError(error, request, options.abortSignal);
    }
    const choice = answer.choices[0];
    const content: LanguageModelV3Content[] = [];
    if (choice?.message.reasoning_content) content.push({ type: 'reasoning', text: choice.message.reasoning_content });
    if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
    for (const call of choice?.message.tool_calls ?? []) content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: call.function.arguments || '{}' });
    return {
      content,
      finishReason: this.dialect.finish(choice?.finish_reason),
      usage: this.dialect.usage(answer.usage),
      providerMetadata: metadata(answer.switchyard),
      request: { body: request },
      response: { id: answer.id, modelId: answer.model, timestamp: new Date(answer.created * 1000) },
      warnings: unsupported.map((u) => this.dialect.warning(u)),
    };
  }

  async doStream(options: LanguageModelV3CallOptions) {
    const { request, unsupported } = toChatRequest(this.modelId, options);
    try {
      // Resolves at the commit point: failures before the first token were failed over already.
      const chat = await this.pipeline.stream({ ...request, stream: true }, { signal: options.abortSignal });
      return { stream: toStreamParts(chat, this.dialect, unsupported.map((u) => this.dialect.warning(u)), request, options.abortSignal), request: { body: request } };
    } catch (error) {
      throw toAiSdkError(error, request, options.abortSignal);
    }
  }
}
