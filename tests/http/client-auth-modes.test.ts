/**
 * The client JWT as auth modes of the handler wrapper (lib/http/auth.ts): `client` requires a live
 * client session, `key_or_client` accepts it or an API key. The wrapper checks the credential
 * before the query and body (a missing one is 401 even when the input is also bad), counts the
 * 401 against the IP's budget of requests without a key, and hands the endpoint a principal
 * typed per mode (the type checks at the bottom run under `tsc --noEmit`).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GET as accountKeysGet, POST as accountKeysPost } from "../../api/account-keys.js";
import { GET as accountGet } from "../../api/client-account.js";
import { endpoint, type RequestContext, route } from "../../lib/http/handler.js";
import { defineOperation } from "../../lib/http/operation.js";
import type { Caller } from "../../lib/keys/authenticate.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { clientAuthCall, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";

useTestDatabase();

const whoOp = defineOperation({
  id: "who",
  method: "POST",
  path: "/api/who",
  summary: "who",
  tags: ["test"],
  auth: "client",
  body: z.strictObject({ n: z.number().int() }),
});
const eitherOp = defineOperation({
  id: "either",
  method: "GET",
  path: "/api/either",
  summary: "either",
  tags: ["test"],
  auth: "key_or_client",
});
const who = route({
  POST: endpoint(whoOp, ({ client, caller }) => ({
    email: client.account.email,
    session: client.session.sessionId,
    key: caller?.keyId ?? null,
  })),
});
const either = route({
  GET: endpoint(eitherOp, (ctx) =>
    ctx.client ? { by: "client", email: ctx.client.account.email } : { by: "key", key: ctx.caller.keyId },
  ),
});

describe("auth mode client", () => {
  it("hands the endpoint the verified session, and the key sent besides it", async () => {
    const key = await makeKey();
    const { jwt, body: opened } = await openLinkedAccount(key);
    const bearer = { authorization: `Bearer ${jwt}` };
    const alone = await call(who.POST, "/api/who", { method: "POST", headers: bearer, json: { n: 1 } });
    expect(alone.res.status).toBe(200);
    expect(alone.body).toMatchObject({ email: opened.account.email, key: null });
    expect(alone.body.session).toMatch(/^ses_/);
    const both = await call(who.POST, "/api/who", {
      method: "POST",
      headers: { ...bearer, "x-api-key": key },
      json: { n: 1 },
    });
    expect(both.body.key).not.toBeNull();
    // A key sent besides the JWT must be valid.
    const badKey = await call(who.POST, "/api/who", {
      method: "POST",
      headers: { ...bearer, "x-api-key": "svc_unknown_key_0000000000000000000000" },
      json: { n: 1 },
    });
    expectEnvelope(badKey.body, badKey.res, 401, "UNAUTHORIZED");
  });

  it("refuses a missing JWT with 401 before reading the body, counted against the IP budget", async () => {
    // The limiters count on a fixed clock: on the real one, the two requests could fall either side
    // of a minute's edge, where the previous window's weight makes the second's remaining no lower.
    resetLimiters(() => Date.UTC(2026, 0, 5, 0, 0, 10));
    try {
      const headers = { "x-forwarded-for": "203.0.113.77" };
      const first = await call(who.POST, "/api/who", {
        method: "POST",
        headers,
        json: { n: "not a number" },
      });
      expectEnvelope(first.body, first.res, 401, "UNAUTHORIZED");
      expect(first.body.error.message).toMatch(/Sign in first/);
      const remaining = Number(first.res.headers.get("ratelimit-remaining"));
      expect(Number.isInteger(remaining)).toBe(true);
      const second = await call(who.POST, "/api/who", { method: "POST", headers, json: { unknown: true } });
      expectEnvelope(second.body, second.res, 401, "UNAUTHORIZED");
      expect(Number(second.res.headers.get("ratelimit-remaining"))).toBe(remaining - 1);
    } finally {
      resetLimiters();
    }
  });

  it("refuses an ended session (logout) on /api/account-keys, GET and POST", async () => {
    const key = await makeKey();
    const { jwt } = await openLinkedAccount(key);
    const bearer = { authorization: `Bearer ${jwt}` };
    const listed = await call(accountKeysGet, "/api/account-keys", { headers: bearer });
    expect(listed.res.status).toBe(200);
    const out = await clientAuthCall("logout", {}, bearer);
    expect(out.res.status).toBe(200);
    const after = await call(accountKeysGet, "/api/account-keys", { headers: bearer });
    expectEnvelope(after.body, after.res, 401, "UNAUTHORIZED");
    expect(after.body.error.reason).toBe("session_ended");
    // The credential is checked before the body: an invalid body without a JWT is still 401.
    const post = await call(accountKeysPost, "/api/account-keys", {
      method: "POST",
      json: { action: "nope" },
    });
    expectEnvelope(post.body, post.res, 401, "UNAUTHORIZED");
  });
});

describe("auth mode key_or_client", () => {
  it("takes the JWT, or else the key; neither is 401 even with a bad query", async () => {
    const key = await makeKey();
    const { jwt, body: opened } = await openLinkedAccount(key);
    const byJwt = await call(either.GET, "/api/either", { headers: { authorization: `Bearer ${jwt}` } });
    expect(byJwt.body).toEqual({ by: "client", email: opened.account.email });
    const byKey = await call(either.GET, "/api/either", { headers: { "x-api-key": key } });
    expect(byKey.body.by).toBe("key");
    const none = await call(either.GET, "/api/either");
    expectEnvelope(none.body, none.res, 401, "UNAUTHORIZED");
    const account = await call(accountGet, "/api/client-account?include=everything");
    expectEnvelope(account.body, account.res, 401, "UNAUTHORIZED");
    expect(account.body.error.message).toMatch(/Send an API key/);
  });
});

// Type checks (tsc): the principal follows the operation's auth mode.
type KeyCtx = RequestContext<unknown, unknown, "key">;
type OptionalCtx = RequestContext<unknown, unknown, "optional">;
type ClientCtx = RequestContext<unknown, unknown, "client">;
const typeChecks = [
  (ctx: KeyCtx): Caller => ctx.caller,
  (ctx: ClientCtx): string => ctx.client.account.id,
  // @ts-expect-error under `optional` the caller may be null
  (ctx: OptionalCtx): Caller => ctx.caller,
  // @ts-expect-error under `key` there is no client session
  (ctx: KeyCtx): string => ctx.client.account.id,
];

it("types the principal per auth mode (checked by tsc; each @ts-expect-error must be an error)", () => {
  expect(typeChecks).toHaveLength(4);
});
