/** Delivers a FaultPlan as a fetch Response (msw handlers): delays on the fault's clock. */
import { sleep, type Clock } from '@switchyard/core';
import { halfOf, type FaultPlan } from '@switchyard/simulate';

const encoder = new TextEncoder();

/** Resolves never; rejects when the signal aborts (a hang must still let go of aborted requests). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function bodyStream(plan: Extract<FaultPlan, { kind: 'respond' }>, clock: Clock, requestSignal: AbortSignal): ReadableStream<Uint8Array> {
  // Cancelling the body (the client went away) must also stop pending delays and stalls.
  const stop = new AbortController();
  const onRequestAbort = () => stop.abort(requestSignal.reason);
  requestSignal.addEventListener('abort', onRequestAbort, { once: true });
  let next = 0;
  const last = plan.chunks.length - 1;
  const finish = () => requestSignal.removeEventListener('abort', onRequestAbort);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (next <= last) {
            const chunk = plan.chunks[next]!;
            await sleep(clock, chunk.delayMs, stop.signal);
            const data = plan.end === 'cut' && next === last ? halfOf(chunk.data) : chunk.data;
            next++;
            controller.enqueue(encoder.encode(data));
            return;
          }
          if (plan.end === 'close') controller.close();
          else if (plan.end === 'cut') controller.error(new Error('chaos: connection cut mid-body'));
          else await untilAborted(stop.signal);
          finish();
        } catch (error) {
          finish();
          if (!stop.signal.aborted) controller.error(error);
        }
      },
      cancel(reason) {
        finish();
        stop.abort(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

export async function planToResponse(plan: FaultPlan, clock: Clock, signal: AbortSignal): Promise<Response> {
  if (plan.kind === 'hang') return untilAborted(signal);
  await sleep(clock, plan.delayMs, signal);
  if (plan.kind === 'reset') return Response.error();
  return new Response(bodyStream(plan, clock, signal), { status: plan.status, headers: plan.headers });
}
