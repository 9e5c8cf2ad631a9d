/**
 * Target of vercel.json's last rewrite (`/api/:path*`): any /api path no function
 * serves gets the 404 envelope instead of the platform's page. Rewrites apply only
 * when no file matches, so real endpoints are unaffected.
 */
import { configurationRefusal } from "../lib/http/error-response.js";
import { newRequestId } from "../lib/http/request-id.js";
import { routeNotFound } from "../lib/http/response.js";

const notFound = async (request: Request): Promise<Response> =>
  configurationRefusal() ?? routeNotFound(new URL(request.url).pathname, newRequestId());

export {
  notFound as GET,
  notFound as HEAD,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
  notFound as OPTIONS,
};
