import type { Abi } from "viem";
import { z } from "zod";

const paramSchema = z.object({ type: z.string(), name: z.string().default(""), indexed: z.boolean().optional() });
const entrySchema = z.object({
  type: z.string(),
  name: z.string().optional(),
  inputs: z.array(paramSchema).optional(),
  outputs: z.array(paramSchema).optional(),
  stateMutability: z.string().optional(),
});

/**
 * `kind name(inputs)(outputs) mutability` per ABI entry (a parameter: `type [indexed] [name]`),
 * sorted: what two ABIs must agree on.
 */
export function abiSignatures(abi: readonly unknown[] | Abi): string[] {
  const list = (params: z.infer<typeof paramSchema>[] = []) =>
    params.map((p) => `${p.type}${p.indexed ? " indexed" : ""} ${p.name}`.trimEnd()).join(",");
  return z
    .array(entrySchema)
    .parse(abi)
    .map(
      (item) =>
        `${item.type} ${item.name ?? ""}(${list(item.inputs)})(${list(item.outputs)}) ${item.stateMutability ?? ""}`,
    )
    .sort();
}

/** abiSignatures of the functions only. */
export function functionSignatures(abi: readonly unknown[] | Abi): string[] {
  return abiSignatures(abi).filter((signature) => signature.startsWith("function "));
}
