import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

/**
 * scrypt, memory-hard: N = 2^15, r = 8, p = 1 uses 128 * N * r = 32 MiB and about 50-100 ms of one
 * core per hash (OWASP's minimum for scrypt is N = 2^17 with r = 8 at p = 1 or an equivalent
 * cost; we take 2^15 because sign-ins run on the API's own 2 cores, and lock an account after 10
 * failures, which bounds online guessing far below what the cost factor would). The parameters are
 * stored in each hash, so raising them later only affects new passwords.
 */
const PARAMETERS = { logN: 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r * p };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$<log2 N>$<r>$<p>$<salt base64>$<key base64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const { logN, r, p } = PARAMETERS;
  const key = await derive(password, salt, logN, r, p);
  return ["scrypt", logN, r, p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** False for a wrong password and for a hash this code did not write. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !logN || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, "base64");
  const actual = await derive(password, Buffer.from(salt, "base64"), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash no password matches, checked when the email is unknown so that answer takes as long as a wrong password. */
export const UNKNOWN_USER_HASH = `scrypt$${PARAMETERS.logN}$${PARAMETERS.r}$${PARAMETERS.p}$${Buffer.alloc(SALT_LENGTH).toString("base64")}$${Buffer.alloc(KEY_LENGTH).toString("base64")}`;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;
