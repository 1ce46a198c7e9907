/**
 * An endpoint's base URL as a provider's endpoint check reads it: the parsed URL and its path
 * without trailing slashes. Undefined when it does not parse: the config schema reports that
 * once, so a provider's check has nothing to add.
 */
export interface ParsedBaseUrl {
  url: URL;
  /** `url.pathname` without trailing slashes (`''` for the origin alone). */
  path: string;
}

export function parseBaseUrl(baseUrl: string): ParsedBaseUrl | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  return { url, path: url.pathname.replace(/\/+$/, '') };
}
