import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { runCli, runCliOk } from "./run-cli.ts";

describe("payments users create | reset-password (dashboard accounts)", () => {
  const database = useTestDatabase({ migrate: false });
  const dataDir = useTempDir("mpusers-");
  let env: Record<string, string | undefined>;
  let merchantId: string;

  beforeAll(async () => {
    env = { DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined };
    const created = await runCliOk(["merchants", "create", "--name", "Users", "--json"], env);
    merchantId = JSON.parse(created).merchant_id;
  }, 120_000);

  it("creates the first admin with a one-time link, and a merchant owner with a password file", async () => {
    const admin = await runCli(
      [
        "users",
        "create",
        "--email",
        "Ops@Example.com",
        "--role",
        "admin",
        "--dashboard-url",
        "https://pay.example.com/",
      ],
      env,
    );
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout).toMatch(/dashboard user ops@example\.com \(admin\)/);
    expect(admin.stdout).toMatch(/https:\/\/pay\.example\.com\/dashboard\/set-password#token=[A-Za-z0-9_-]{43}\n/);

    const passwordFile = join(dataDir, "password.txt");
    writeFileSync(passwordFile, "a long enough password\n");
    const owner = await runCli(
      [
        "users",
        "create",
        "--email",
        "owner@example.com",
        "--role",
        "owner",
        "--merchant",
        merchantId,
        "--password-file",
        passwordFile,
        "--json",
      ],
      env,
    );
    expect(owner.code, owner.stderr).toBe(0);
    expect(JSON.parse(owner.stdout)).toMatchObject({
      email: "owner@example.com",
      role: "owner",
      merchant_id: merchantId,
      password_link: null,
    });

    const reset = await runCliOk(["users", "reset-password", "--email", "owner@example.com", "--json"], env);
    expect(JSON.parse(reset).password_link).toMatch(/^http:\/\/localhost:\d+\/dashboard\/set-password#token=/);
  }, 120_000);

  it("refuses an unknown role, a merchant role without a merchant, an admin with one, a taken email and a short password", async () => {
    const badRole = await runCli(["users", "create", "--email", "x@example.com", "--role", "root"], env);
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toMatch(/must be one of admin, owner, developer, finance, viewer/);

    const noMerchant = await runCli(["users", "create", "--email", "x@example.com", "--role", "viewer"], env);
    expect(noMerchant.code).toBe(1);
    expect(noMerchant.stderr).toMatch(/merchant: required for the viewer role/);

    const adminWithMerchant = await runCli(
      ["users", "create", "--email", "x@example.com", "--role", "admin", "--merchant", merchantId],
      env,
    );
    expect(adminWithMerchant.stderr).toMatch(/an admin belongs to no merchant/);

    const taken = await runCli(["users", "create", "--email", "OPS@example.com", "--role", "admin"], env);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/a dashboard user ops@example\.com exists/);

    const shortFile = join(dataDir, "short.txt");
    writeFileSync(shortFile, "short");
    const short = await runCli(
      ["users", "create", "--email", "y@example.com", "--role", "admin", "--password-file", shortFile],
      env,
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/password: must be 12 to 256 characters long/);
  }, 120_000);
});
