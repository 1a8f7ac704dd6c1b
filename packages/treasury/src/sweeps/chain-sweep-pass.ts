import type { ChainId, Logger } from "@mp/core";
import type { Database } from "@mp/db";
import type { SweepConfig } from "./sweep-config.ts";
import type { Fenced, SweeperOptions, SweepPass } from "./sweep-send.ts";

/**
 * One pass of a family's sweeper over one chain under its lease (see createSweeperLoop): the pass's
 * chain, sweep config, fenced writes and logger, and the context finishSettledSweeps reads, with
 * the family's chain runtime (its node, assets), treasury address and sweeper options. A family's
 * pass extends it with what it sweeps.
 */
export abstract class ChainSweepPass<R, O extends SweeperOptions, A extends string = string> {
  protected readonly chain: ChainId;
  protected readonly config: SweepConfig;
  protected readonly fenced: Fenced;
  protected readonly logger: Logger;
  protected readonly context: SweepPass & { db: Database };

  constructor(
    protected readonly runtime: R,
    protected readonly treasury: A,
    protected readonly options: O,
    run: SweepPass,
  ) {
    ({ chain: this.chain, config: this.config, fenced: this.fenced, logger: this.logger } = run);
    this.context = { db: options.db, ...run };
  }

  abstract run(): Promise<void>;
}
