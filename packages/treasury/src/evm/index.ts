export { createEvmSender } from "./evm-sender.ts";
