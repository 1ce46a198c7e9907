/**
 * One small surface over both undici dispatch-handler APIs: the controller API undici 7 calls
 * on interceptors (`onRequestStart` … `onResponseError`) and the legacy API that undici's own
 * `request()` / `stream()` still pass to `dispatch()` (`onConnect` … `onError`). The bridge
 * drives this surface and never has to know which one it is talking to.
 */
import type { Dispatcher } from 'undici';

export interface ResponseSink {
  /** Gives the handler its way to abort (it may abort at once, e.g. an already-aborted signal). */
  start(abort: (reason?: Error) => void): void;
  headers(status: number, headers: Headers, statusText: string): void;
  data(chunk: Buffer): void;
  end(): void;
  error(error: Error): void;
  /** True while the consumer asked us to stop pushing data (backpressure). */
  readonly paused: boolean;
  /** Resolves when the consumer resumes (immediately if not paused). */
  waitUntilResumed(): Promise<void>;
  readonly finished: boolean;
}

type IncomingHeaders = Record<string, string | string[]>;

function headersObject(headers: Headers): IncomingHeaders {
  const out: IncomingHeaders = {};
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

function rawHeaders(headers: Headers): Buffer[] {
  const raw: Buffer[] = [];
  for (const [name, value] of Object.entries(headersObject(headers))) {
    for (const v of Array.isArray(value) ? value : [value]) raw.push(Buffer.from(name, 'latin1'), Buffer.from(v, 'latin1'));
  }
  return raw;
}

class Controller implements Dispatcher.DispatchController {
  paused = false;
  aborted = false;
  reason: Error | null = null;
  private resumeWaiters: (() => void)[] = [];

  constructor(private readonly onAbort: (reason?: Error) => void) {}

  abort(reason?: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? null;
    this.onAbort(reason);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    for (const wake of this.resumeWaiters.splice(0)) wake();
  }

  waitUntilResumed(): Promise<void> {
    if (!this.paused) return Promise.resolve();
    return new Promise((resolve) => this.resumeWaiters.push(resolve));
  }

  /** Lets a pending body read stop waiting once the request is over. */
  releaseWaiters(): void {
    for (const wake of this.resumeWaiters.splice(0)) wake();
  }
}

export function toResponseSink(handler: Dispatcher.DispatchHandler): ResponseSink {
  let controller: Controller | undefined;
  let finished = false;
  // undici itself only looks at onRequestStart; any controller-API method is a clearer signal.
  const controllerApi = ['onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError'] as const;
  const legacy = !controllerApi.some((name) => typeof handler[name] === 'function');
  const ctl = () => controller!;
  const finish = () => {
    finished = true;
    controller?.releaseWaiters();
  };
  return {
    get paused() {
      return controller?.paused ?? false;
    },
    get finished() {
      return finished;
    },
    waitUntilResumed: () => ctl().waitUntilResumed(),
    start(abort) {
      controller = new Controller(abort);
      if (legacy) handler.onConnect?.((reason) => ctl().abort(reason));
      else handler.onRequestStart?.(ctl(), {});
    },
    headers(status, headers, statusText) {
      if (finished) return;
      if (legacy) {
        const c = ctl();
        if (handler.onHeaders?.(status, rawHeaders(headers), () => c.resume(), statusText) === false) c.pause();
      } else {
        handler.onResponseStart?.(ctl(), status, headersObject(headers), statusText);
      }
    },
    data(chunk) {
      if (finished) return;
      if (legacy) {
        if (handler.onData?.(chunk) === false) ctl().pause();
      } else {
        handler.onResponseData?.(ctl(), chunk);
      }
    },
    end() {
      if (finished) return;
      finish();
      if (legacy) handler.onComplete?.([]);
      else handler.onResponseEnd?.(ctl(), {});
    },
    error(error) {
      if (finished) return;
      finish();
      if (legacy) handler.onError?.(error);
      else handler.onResponseError?.(ctl(), error);
    },
  };
}
