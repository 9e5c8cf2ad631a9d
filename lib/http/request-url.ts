/**
 * The parsed URL of a request, parsed once and shared by whoever reads it during the request (the
 * local host's dispatch, the handler wrapper), instead of one `new URL` each.
 */

/** Where the parsed URL is kept on the request object (a private symbol: no one else sees it). */
const PARSED = Symbol("parsed url");

/**
 * `new URL(request.url)`, parsed on the first call for `request` and the same object after: read
 * it, never modify it (copy it with `new URL(url)` first).
 */
export function requestUrl(request: Request): URL {
  const holder = request as Request & { [PARSED]?: URL };
  let url = holder[PARSED];
  if (url === undefined) {
    url = new URL(request.url);
    holder[PARSED] = url;
  }
  return url;
}
