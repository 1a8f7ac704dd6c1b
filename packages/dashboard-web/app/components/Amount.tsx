import { formatMoney, formatUnits } from "./money.ts";

/**
 * An amount as people read it (formatMoney: the asset's precision, the locale's separators); the
 * class and `data-asset` let a test find every amount of a page. `value` is a decimal string in whole
 * units, or `raw` smallest units with their `decimals`.
 */
export function Amount(props: { value: string; asset: string } | { raw: string; decimals: number; asset: string }) {
  const text =
    "value" in props ? formatMoney(props.value, props.asset) : formatUnits(props.raw, props.decimals, props.asset);
  return (
    <span class="money" data-asset={props.asset}>
      {text}
    </span>
  );
}
