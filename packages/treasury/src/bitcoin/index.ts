export { createBitcoinSender } from "./bitcoin-sender.ts";
export { BroadcastRejectedError } from "./broadcast-rejected-error.ts";
