// The container's HEALTHCHECK: exit 0 when GET /health answers 200. Node is the only tool in
// the slim image (no curl, no wget). SWITCHYARD_HEALTH_URL overrides the address.
const url = process.env.SWITCHYARD_HEALTH_URL ?? 'http://127.0.0.1:8787/health';
fetch(url, { signal: AbortSignal.timeout(2500) }).then(
  (response) => process.exit(response.status === 200 ? 0 : 1),
  () => process.exit(1),
);
