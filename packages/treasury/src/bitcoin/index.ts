export { BroadcastRejectedError, createBitcoinSender } from "./bitcoin-sender.ts";
