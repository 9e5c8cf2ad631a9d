/**
 * `npm run staff:totp -- <base32 secret>`: prints the current 6-digit TOTP code of a secret (what
 * an authenticator app would show), for the development owner that `npm run dev` prints, or any
 * test account. Development only: a real staff member keeps the secret in an authenticator app.
 */
import { generate } from "otplib";

async function main(): Promise<void> {
  const secret = process.argv
    .slice(2)
    .find((a) => a !== "--")
    ?.trim();
  if (!secret) throw new Error("Usage: npm run staff:totp -- <base32 secret>");
  const code = await generate({ secret });
  const left = 30 - (Math.floor(Date.now() / 1000) % 30);
  console.log(code);
  console.error(`valid for about ${left} s more (30 s steps); a code is accepted once`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
