export const CURRENT_VERSION = "2026-07-05";
export const LEGACY_VERSION = "2026-06-11";
export const API_VERSIONS = [LEGACY_VERSION, CURRENT_VERSION] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

export function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}
