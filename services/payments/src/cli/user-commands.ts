import { readFile } from "node:fs/promises";
import { PASSWORD_LINK_HOURS } from "@mp/dashboard/password-link-hours";
import { isRole, ROLES, type Role } from "@mp/dashboard/roles";
import { type Command, InvalidArgumentError, Option } from "commander";
import { operatorOption, print, withDatabase } from "./cli-support.ts";

const role = (value: string): Role => {
  if (!isRole(value)) throw new InvalidArgumentError(`must be one of ${ROLES.join(", ")}`);
  return value;
};

/** The file's content without the line break an editor or `echo` adds at its end. */
async function readPasswordFile(path: string): Promise<string> {
  return (await readFile(path, "utf8")).replace(/\r?\n$/, "");
}

function dashboardUrlOption(): Option {
  return new Option(
    "--dashboard-url <url>",
    "the service's address as the user's browser reaches it (default http://localhost:PORT)",
  );
}

/** `users create` and `users reset-password`: dashboard accounts (the first admin is made here). */
export function addUserCommands(program: Command): void {
  const users = program.command("users").description("Manage dashboard users");
  users
    .command("create")
    .description(
      `Create a dashboard user; without --password-file print a one-time link (valid ${PASSWORD_LINK_HOURS} h) to set the password`,
    )
    .requiredOption("--email <email>", "the user's email, their sign-in name")
    .requiredOption("--role <role>", `one of ${ROLES.join(", ")} (admin: the operator, no merchant)`, role)
    .option("--merchant <id>", "the merchant of an owner, developer, finance or viewer")
    .option("--password-file <file>", "read the password from this file (at least 12 characters)")
    .addOption(dashboardUrlOption())
    .addOption(operatorOption("creates the user"))
    .option("--json", "print one JSON object on stdout")
    .action(
      async (options: {
        email: string;
        role: Role;
        merchant?: string;
        passwordFile?: string;
        dashboardUrl?: string;
        operator: string;
        json?: boolean;
      }) => {
        const password = options.passwordFile ? await readPasswordFile(options.passwordFile) : undefined;
        // The user store, not the dashboard's index (its HTTP app, which reaches every API route).
        const [{ createUser }, { createPasswordLink, passwordLinkUrl }] = await Promise.all([
          import("@mp/dashboard/users"),
          import("@mp/dashboard/password-links"),
        ]);
        const { user, link } = await withDatabase(async (db, config) => {
          const created = await createUser(db, {
            email: options.email,
            role: options.role,
            merchantId: options.merchant,
            password,
            actor: options.operator,
          });
          if (password !== undefined) return { user: created, link: undefined };
          const token = await createPasswordLink(db, created.id);
          return {
            user: created,
            link: passwordLinkUrl(options.dashboardUrl ?? `http://localhost:${config.port}`, token),
          };
        });
        print(
          options.json === true,
          {
            id: user.id,
            email: user.email,
            role: user.role,
            merchant_id: user.merchantId ?? null,
            password_link: link ?? null,
          },
          `dashboard user ${user.email} (${user.role}${user.merchantId ? ` of merchant ${user.merchantId}` : ""})${
            link ? `\nset the password once, within ${PASSWORD_LINK_HOURS} hours: ${link}` : ""
          }`,
        );
      },
    );
  users
    .command("reset-password")
    .description("Print a new one-time link to set a user's password (using it also ends a lockout)")
    .requiredOption("--email <email>", "the user's email")
    .addOption(dashboardUrlOption())
    .option("--json", "print one JSON object on stdout")
    .action(async (options: { email: string; dashboardUrl?: string; json?: boolean }) => {
      const [{ findUserByEmail }, { createPasswordLink, passwordLinkUrl }] = await Promise.all([
        import("@mp/dashboard/users"),
        import("@mp/dashboard/password-links"),
      ]);
      const link = await withDatabase(async (db, config) => {
        const user = await findUserByEmail(db, options.email);
        if (!user) throw new Error(`no dashboard user ${options.email}`);
        const token = await createPasswordLink(db, user.id);
        return passwordLinkUrl(options.dashboardUrl ?? `http://localhost:${config.port}`, token);
      });
      print(
        options.json === true,
        { password_link: link },
        `set the password once, within ${PASSWORD_LINK_HOURS} hours: ${link}`,
      );
    });
}
