import { createTransferTreasury } from "@mp/treasury";
import { sendCheckOf } from "./chain-families.ts";

/** The transfers' treasury (payouts and deposit returns as treasury sends), each checked by its chain's family. */
export const transferTreasury = createTransferTreasury(sendCheckOf);
