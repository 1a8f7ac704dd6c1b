import type { VolumeAnswer } from "../answers.ts";
import { Amount } from "./Amount.tsx";
import { compareDecimals, formatMoney } from "./money.ts";

/** Deposit volume per day as plain SVG bars (no chart library): one bar per day of the period. */
export function VolumeChart(props: VolumeAnswer) {
  const byDay = new Map(props.items.map((item) => [item.day, item]));
  const today = new Date();
  const days: string[] = [];
  for (let i = props.days - 1; i >= 0; i--) {
    const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - i));
    days.push(d.toISOString().slice(0, 10));
  }
  // Bar heights only (a float is fine for pixels): the figures shown are formatted from the exact strings.
  const heights = days.map((day) => Number(byDay.get(day)?.amount_usd ?? "0"));
  const max = Math.max(...heights, 0);
  const width = 600;
  const height = 160;
  const bar = width / days.length;
  const total = props.items.reduce((n, item) => n + item.count, 0);
  const peak = props.items.reduce<(typeof props.items)[number] | undefined>(
    (best, item) => (best && compareDecimals(best.amount_usd, item.amount_usd) >= 0 ? best : item),
    undefined,
  );
  return (
    <figure class="card chart">
      <figcaption>
        Deposit volume (USD) per day, last {props.days} days{total === 0 ? ": no deposits yet" : ""}
      </figcaption>
      {peak && (
        <p class="hint peak">
          Peak: <Amount value={peak.amount_usd} asset="USD" /> on {peak.day}
        </p>
      )}
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-label={`Deposit volume per day, ${total} deposits`}>
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        {days.map((day, i) => {
          const item = byDay.get(day);
          const h = max > 0 ? Math.max(item ? 2 : 0, ((heights[i] ?? 0) / max) * (height - 10)) : 0;
          return (
            <rect key={day} x={i * bar + 2} y={height - h} width={Math.max(bar - 4, 1)} height={h} class="bar">
              <title>
                {day}: {formatMoney(item?.amount_usd ?? "0", "USD")} in {item?.count ?? 0} deposits
              </title>
            </rect>
          );
        })}
        <text x="0" y={height + 16} class="tick">
          {days[0]}
        </text>
        <text x={width} y={height + 16} class="tick" text-anchor="end">
          {days.at(-1)}
        </text>
      </svg>
      {total > 0 && (
        <table class="visually-hidden">
          <caption>Deposit volume per day</caption>
          <tbody>
            {props.items.map((item) => (
              <tr key={item.day}>
                <th scope="row">{item.day}</th>
                <td>
                  <Amount value={item.amount_usd} asset="USD" />
                </td>
                <td>{item.count} deposits</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </figure>
  );
}
