/**
 * An abort that costs a plain object until someone asks for an `AbortSignal`. Every request and
 * every attempt can be aborted, but almost none is: an `AbortController` per request and per
 * attempt (plus the listeners linking them) was a measurable share of the gateway's CPU. The
 * core's own links (caller → request → attempt → transport) use `onAbort`; a plugin or a custom
 * transport that reads `signal` gets a real one, created then and aborted with the same reason.
 */
export class AbortLink {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;
  private controller: AbortController | undefined;

  /** A real AbortSignal, made on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.controller?.abort(this.reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** Calls `listener` once when the link aborts (right away if it has); returns its removal. */
  onAbort(listener: () => void): () => void {
    if (this.aborted) {
      listener();
      return noop;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      const i = this.listeners?.indexOf(listener) ?? -1;
      if (i >= 0) this.listeners!.splice(i, 1);
    };
  }
}

const noop = () => undefined;

/** What the core needs of a caller's abort: an AbortSignal or an AbortLink. */
export type AbortSource = AbortSignal | AbortLink;

/** Subscribes to either kind of abort source; returns the removal. */
export function onAbortOf(source: AbortSource, listener: () => void): () => void {
  if (isAbortLink(source)) return source.onAbort(listener);
  if (source.aborted) {
    listener();
    return noop;
  }
  source.addEventListener('abort', listener, { once: true });
  return () => source.removeEventListener('abort', listener);
}

/** The AbortSignal of either kind (a link makes its signal now). */
export function signalOf(source: AbortSource): AbortSignal {
  return isAbortLink(source) ? source.signal : source;
}

/** By shape, not class: a second copy of the core (two versions installed) makes links that work too. */
function isAbortLink(source: AbortSource): source is AbortLink {
  return typeof (source as AbortLink).onAbort === 'function';
}
