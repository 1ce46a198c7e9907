/**
 * Loaded into an agent CLI under test (`NODE_OPTIONS=--import …`): every TCP dial and DNS
 * lookup that is not loopback is written to $SWITCHYARD_DIAL_LOG and refused, so a client that
 * phones home (telemetry, update checks, a Google endpoint) fails its test at once instead of
 * reaching the internet.
 */
import dns from 'node:dns';
import { appendFileSync } from 'node:fs';
import net from 'node:net';

const log = process.env.SWITCHYARD_DIAL_LOG;
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3}|\[::1\])$/i;

function record(what) {
  if (log) appendFileSync(log, `${what}\n`);
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  if (options.path === undefined) {
    const host = options.host ?? 'localhost';
    if (!LOOPBACK.test(host)) {
      record(`connect ${host}:${options.port}`);
      process.nextTick(() => this.destroy(new Error(`dial to ${host} refused: loopback only`)));
      return this;
    }
  }
  return connect.apply(this, args);
};

const lookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, ...rest) {
  if (typeof hostname === 'string' && !LOOPBACK.test(hostname)) record(`lookup ${hostname}`);
  return lookup.call(this, hostname, ...rest);
};
