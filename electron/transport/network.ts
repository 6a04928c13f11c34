import type http from 'node:http';
import net from 'node:net';
import os from 'node:os';

/**
 * Where a request comes from and which names it may use, for `awb serve`:
 *
 * - Host allow-list (against DNS rebinding: a page of evil.example whose name is made to point
 *   at this machine still sends `Host: evil.example`): the loopback names; the address the server
 *   is bound to; bound to every interface (0.0.0.0 or ::), this machine's own addresses; the
 *   public origin's host; and each `--allowed-host`. Any other Host is refused.
 * - Origin: a browser's Origin must be the public origin, or this server under an allowed Host.
 * - Proxy trust: `X-Forwarded-For` and `X-Forwarded-Proto` are believed only from a peer the
 *   owner named with `--trusted-proxy` (or AWB_TRUSTED_PROXY), and of X-Forwarded-For only the
 *   entry that proxy added (the last). Anything else on the machine could send them too.
 */

export interface NetworkOptions {
  /** The interface the server listens on. */
  host: string;
  /** Behind a reverse proxy: the origin people use (default: AWB_PUBLIC_ORIGIN). */
  publicOrigin?: string | undefined;
  /** More names people use to reach the server (`--allowed-host`, repeatable). */
  allowedHosts?: readonly string[] | undefined;
  /** Peers whose X-Forwarded-* headers are believed (`--trusted-proxy`; default: AWB_TRUSTED_PROXY, comma-separated). */
  trustedProxies?: readonly string[] | undefined;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1'];
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** `[::1]` → `::1`, `::ffff:127.0.0.1` → `127.0.0.1`, names in lower case. */
export function normalizeAddress(address: string): string {
  const bare = address.trim().replace(/^\[|\]$/g, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  return mapped ? mapped[1]! : bare;
}

export function isLoopbackHost(host: string): boolean {
  const bare = normalizeAddress(host);
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** The host part of a Host header (`name:port`, `[v6]:port`), or null when it is malformed. */
export function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const text = header.trim();
  const v6 = /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/.exec(text);
  if (v6) return normalizeAddress(v6[1]!);
  const plain = /^([A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(text);
  return plain ? plain[1]!.toLowerCase().replace(/\.$/, '') : null;
}

function publicOriginOf(text: string | undefined): URL | undefined {
  if (!text) return undefined;
  try {
    return new URL(text);
  } catch {
    throw new Error(`The public origin (AWB_PUBLIC_ORIGIN) is not a URL: ${text}`);
  }
}

function listFromEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** This machine's own addresses, for a server bound to every interface. */
function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const entry of list ?? []) out.add(normalizeAddress(entry.address.split('%')[0]!));
  return out;
}

export class NetworkPolicy {
  readonly publicOrigin: URL | undefined;
  private readonly names: Set<string>;
  private readonly trusted: Set<string>;
  private readonly wildcard: boolean;
  private interfaces: { at: number; addresses: Set<string> } | null = null;

  constructor(options: NetworkOptions) {
    this.publicOrigin = publicOriginOf(options.publicOrigin ?? process.env.AWB_PUBLIC_ORIGIN);
    const bound = normalizeAddress(options.host);
    this.wildcard = WILDCARDS.has(bound);
    this.names = new Set(LOOPBACK_NAMES);
    if (!this.wildcard) this.names.add(bound);
    if (this.publicOrigin) this.names.add(normalizeAddress(this.publicOrigin.hostname));
    for (const name of options.allowedHosts ?? []) {
      const parsed = hostName(name);
      if (!parsed) throw new Error(`--allowed-host: "${name}" is not a host name or address`);
      this.names.add(parsed);
    }
    this.trusted = new Set((options.trustedProxies ?? listFromEnv(process.env.AWB_TRUSTED_PROXY)).map(normalizeAddress));
    for (const proxy of this.trusted) {
      if (!net.isIP(proxy)) throw new Error(`--trusted-proxy: "${proxy}" is not an IP address (name the proxy by the address it connects from)`);
    }
  }

  /** The names people may use, for messages (this machine's addresses included when bound to all). */
  describeHosts(): string {
    return [...this.names, ...(this.wildcard ? ['this machine\'s addresses'] : [])].join(', ');
  }

  private ownAddress(name: string): boolean {
    if (!this.wildcard || !net.isIP(name)) return false;
    // Addresses change (DHCP, VPN): read them again at most once a minute.
    if (!this.interfaces || Date.now() - this.interfaces.at > 60_000) this.interfaces = { at: Date.now(), addresses: interfaceAddresses() };
    return this.interfaces.addresses.has(name);
  }

  hostAllowed(req: http.IncomingMessage): boolean {
    const name = hostName(req.headers.host);
    if (name === null) return false;
    return this.names.has(name) || isLoopbackHost(name) || this.ownAddress(name);
  }

  /** No Origin (not a browser, or a same-origin GET) passes; otherwise it must be this server's own. */
  originAllowed(req: http.IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    if (this.publicOrigin && origin === this.publicOrigin.origin) return true;
    return origin === `${this.behindTls(req) ? 'https' : 'http'}://${req.headers.host ?? ''}`;
  }

  private fromTrustedProxy(req: http.IncomingMessage): boolean {
    return this.trusted.has(normalizeAddress(req.socket.remoteAddress ?? ''));
  }

  /** The client's address: the peer's, or behind a trusted proxy the entry that proxy added. */
  clientAddress(req: http.IncomingMessage): string {
    const peer = normalizeAddress(req.socket.remoteAddress ?? 'unknown');
    if (!this.fromTrustedProxy(req)) return peer;
    const forwarded = req.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.at(-1) : forwarded)?.split(',').at(-1)?.trim();
    return last && net.isIP(normalizeAddress(last)) ? normalizeAddress(last) : peer;
  }

  /** Whether the browser reached us over TLS, as a trusted proxy says. */
  behindTls(req: http.IncomingMessage): boolean {
    return this.fromTrustedProxy(req) && req.headers['x-forwarded-proto'] === 'https';
  }
}
