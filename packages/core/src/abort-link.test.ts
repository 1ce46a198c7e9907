import { describe, expect, it } from 'vitest';
import { AbortLink, onAbortOf, signalOf } from './abort-link.js';

describe('AbortLink', () => {
  it('calls each listener once, in order, with the reason readable', () => {
    const link = new AbortLink();
    const seen: string[] = [];
    link.onAbort(() => seen.push(`a:${String(link.reason)}`));
    link.onAbort(() => seen.push('b'));
    link.abort('gone');
    link.abort('again');
    expect(seen).toEqual(['a:gone', 'b']);
    expect(link.aborted).toBe(true);
    expect(link.reason).toBe('gone');
  });

  it('a removed listener is not called; one added after the abort runs at once', () => {
    const link = new AbortLink();
    let removedRan = false;
    const remove = link.onAbort(() => (removedRan = true));
    remove();
    link.abort(new Error('x'));
    let late = false;
    link.onAbort(() => (late = true));
    expect(removedRan).toBe(false);
    expect(late).toBe(true);
  });

  it('makes its AbortSignal on demand, aborted with the same reason before or after', () => {
    const early = new AbortLink();
    const signal = early.signal;
    expect(signal.aborted).toBe(false);
    early.abort('first');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('first');

    const late = new AbortLink();
    late.abort('second');
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe('second');
    expect(late.signal).toBe(late.signal);
  });

  it('an abort without a reason carries an AbortError, like AbortController', () => {
    const link = new AbortLink();
    link.abort();
    expect((link.reason as DOMException).name).toBe('AbortError');
  });

  it('onAbortOf and signalOf take a link or a signal alike', () => {
    const controller = new AbortController();
    const link = new AbortLink();
    const calls: string[] = [];
    const offSignal = onAbortOf(controller.signal, () => calls.push('signal'));
    onAbortOf(link, () => calls.push('link'));
    offSignal();
    controller.abort();
    link.abort();
    expect(calls).toEqual(['link']);
    expect(signalOf(controller.signal)).toBe(controller.signal);
    expect(signalOf(link)).toBe(link.signal);
    const aborted = new AbortController();
    aborted.abort();
    let now = false;
    onAbortOf(aborted.signal, () => (now = true));
    expect(now).toBe(true);
  });
});
