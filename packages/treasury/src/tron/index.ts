export { createTronSender } from "./tron-sender.ts";
