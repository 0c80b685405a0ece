/**
 * The origin people reach this server at, on which the absolute URLs it gives out are made: the
 * customer's authentication page (`next_action.redirect_to_url.url`), a charge's `receipt_url`,
 * the links in receipt e-mails. A browser follows them as given, so they cannot be paths.
 */
import { hostAndPort } from './startup-failure.js';

/** The host a browser reaches a wildcard listener (every interface) on: its IPv4 loopback. */
const WILDCARD_STANDIN = '127.0.0.1';

/**
 * `http://host:port` of a listener, as a browser can open it. A wildcard host (`0.0.0.0`, `::`)
 * names no machine, so loopback stands in: it is reachable whenever the wildcard is (Node listens
 * dual-stack on `::`). The request's `Host` header is not used instead: the client chooses it, and
 * the same object must carry the same URL in an answer, in its stored event and in every webhook.
 * Reached from elsewhere (a proxy, another machine), a deployment sets `PUBLIC_URL`.
 */
export function listenerOrigin(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? WILDCARD_STANDIN : host;
  return `http://${hostAndPort(reachable, port)}`;
}

/**
 * The public origin of a process: `PUBLIC_URL` when set; otherwise its API listener's, once that
 * listens ({@link PublicOrigin.listening}: port 0 picks a port only then); otherwise the
 * configured host and port (a `ROLE=worker` process, which serves no API).
 */
export class PublicOrigin {
  private listeningPort: number | undefined;

  private readonly configured: string | undefined;

  /** `publicUrl` is reduced to its origin (as `loadConfig` does), whoever built the configuration. */
  constructor(
    publicUrl: string | undefined,
    private readonly host: string,
    private readonly port: number,
  ) {
    this.configured = publicUrl && new URL(publicUrl).origin;
  }

  /** Records the port the API listens on. */
  listening(port: number): void {
    this.listeningPort = port;
  }

  /** The origin, without a trailing slash. */
  get url(): string {
    return this.configured ?? listenerOrigin(this.host, this.listeningPort ?? this.port);
  }
}
