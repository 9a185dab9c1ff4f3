/**
 * The compatibility window of a retired API version: deprecated since `deprecatedAt`, answered until
 * `sunset`, retired from then on.
 */
export interface CompatibilityWindow {
  deprecatedAt: Date;
  sunset: Date;
}

export function isRetired(window: CompatibilityWindow, now: Date): boolean {
  return now.getTime() >= window.sunset.getTime();
}

/**
 * The headers every answer inside the window carries: `Deprecation` as an RFC 9745 date
 * (`@<unix seconds>`), `Sunset` as an RFC 8594 HTTP-date, and the successor as an RFC 8288 link.
 */
export function compatibilityHeaders(window: CompatibilityWindow, successorUrl: string): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(window.deprecatedAt.getTime() / 1000)}`,
    Sunset: window.sunset.toUTCString(),
    // A reference anchor names a path template; braces are not allowed in a URI reference.
    Link: `<${successorUrl.replaceAll("{", "%7B").replaceAll("}", "%7D")}>; rel="successor-version"`,
  };
}
