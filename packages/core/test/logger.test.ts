import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;
const FIXTURE = fileURLToPath(new URL("./fixtures/log-one-line.ts", import.meta.url));

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

/** Colours and the terminal's carriage returns, which a person never sees as characters. */
const plain = (text: string) => stripVTControlCharacters(text).replace(/\r/g, "");

describe("createLogger's output", () => {
  it("is one JSON object per line when stdout is not a terminal (a pipe, a file, a collector)", async () => {
    const { code, stdout } = await run(TSX, [FIXTURE]);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string);
    expect(line).toMatchObject({ level: 30, name: "payments", chain: "BASE", msg: "indexer lock acquired" });
    expect(line.apiKey).toBe("[redacted]");
  });

  it("is human-readable (pino-pretty) when stdout is a terminal", async () => {
    // `script` runs the command on a pseudo-terminal, as an operator's shell would.
    const { code, stdout } = await run("script", ["-qec", `${TSX} ${FIXTURE}`, "/dev/null"]);
    expect(code).toBe(0);
    const text = plain(stdout).trim();
    expect(text).not.toMatch(/^\{/);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(payments\/\d+\): indexer lock acquired\n/);
    expect(text).toContain('chain: "BASE"');
    expect(text).toContain('apiKey: "[redacted]"');
    expect(text).not.toContain("sk_sandbox_secret");
  });
});
