/**
 * A duration as people read it in messages ("expired after 1d", "resets in 1h 30m"), never
 * "86400000 ms": seconds rounded up, at most two units, zero parts left out.
 */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const parts = (big: number, bigUnit: string, small: number, smallUnit: string) => `${big}${bigUnit}${small ? ` ${small}${smallUnit}` : ''}`;
  if (s < 60) return `${s}s`;
  if (s < 3600) return parts(Math.floor(s / 60), 'm', s % 60, 's');
  if (s < 86_400) return parts(Math.floor(s / 3600), 'h', Math.floor((s % 3600) / 60), 'm');
  return parts(Math.floor(s / 86_400), 'd', Math.floor((s % 86_400) / 3600), 'h');
}
