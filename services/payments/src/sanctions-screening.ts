import { type AppConfig, ConfigError, type Logger } from "@mp/core";
import { type AddressScreening, createDisabledScreening, createListScreeningProvider } from "@mp/providers";

/**
 * The process's sanctions screening (docs/sanctions.md), opened before the database: production
 * refuses to start without SANCTIONS_LIST_PATH unless the operator opted out with
 * SANCTIONS_SCREENING=off, which is logged at every start. A list that is set must load.
 */
export async function openSanctionsScreening(
  config: Pick<AppConfig, "environment" | "sanctions">,
  logger: Logger,
): Promise<AddressScreening> {
  const { screening, listPath } = config.sanctions;
  if (screening === "off") {
    logger.warn(
      { setting: "SANCTIONS_SCREENING" },
      "SANCTIONS_SCREENING=off: no deposit sender and no payout destination is screened against a sanctions list",
    );
    return createDisabledScreening();
  }
  if (config.environment === "production" && listPath === undefined) {
    throw new ConfigError(
      "SANCTIONS_LIST_PATH",
      "required in production (a sanctions list file or a directory of sanctioned_addresses_<ASSET>.txt files); SANCTIONS_SCREENING=off opts out explicitly",
    );
  }
  let provider: AddressScreening;
  try {
    provider = await createListScreeningProvider({
      path: listPath ?? null,
      sandbox: config.environment === "sandbox",
      logger,
    });
  } catch (error) {
    throw new ConfigError("SANCTIONS_LIST_PATH", error instanceof Error ? error.message : String(error));
  }
  logger.info({ sanctions: provider.describe() }, "sanctions screening ready");
  return provider;
}
