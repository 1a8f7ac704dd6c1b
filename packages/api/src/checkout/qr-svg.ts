import { encode } from "uqr";

/**
 * A QR code of `value` as a standalone SVG document, drawn on the server (the hosted page loads
 * nothing from anyone else): uqr computes the matrix, one path draws each row's dark runs, with the
 * quiet zone of four modules the standard asks for and crisp edges at any size.
 */
export function qrSvg(value: string, label: string): string {
  const { data, size } = encode(value, { border: 4, ecc: "M" });
  let path = "";
  data.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      if (!row[x]) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < row.length && row[x]) x += 1;
      path += `M${start} ${y}h${x - start}v1h-${x - start}z`;
    }
  });
  const title = label.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges" role="img">` +
    `<title>${title}</title><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`
  );
}
