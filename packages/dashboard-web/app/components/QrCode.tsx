import { encode } from "uqr";

/** A QR code of `value` as SVG (uqr computes the matrix; one path draws it, crisp at any size). */
export function QrCode(props: { value: string; label: string; size?: number }) {
  const { data, size } = encode(props.value, { border: 2 });
  let path = "";
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    });
  });
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${size} ${size}`}
      width={props.size ?? 128}
      height={props.size ?? 128}
      role="img"
      aria-label={props.label}
      shape-rendering="crispEdges"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
