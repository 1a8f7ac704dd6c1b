export { createSolanaSender } from "./solana-sender.ts";
