/**
 * Bitcoin Core's output-descriptor checksum (src/script/descriptor.cpp, DescriptorChecksum), so
 * `scriptPubKey.desc` reads `addr(bcrt1q...)#5xn87zzk` exactly as Core writes it. The 40-bit
 * polymod state is kept in two halves because JS bit operators work on 32 bits.
 */

const INPUT_CHARSET =
  "0123456789()[],'/*abcdefgh@:$%{}" + "IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~" + 'ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const TWO_32 = 0x1_0000_0000;
const TWO_35 = 0x8_0000_0000;
const GENERATORS = [0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd];

function xor40(a: number, b: number): number {
  const high = (Math.floor(a / TWO_32) ^ Math.floor(b / TWO_32)) & 0xff;
  const low = ((a >>> 0) ^ (b >>> 0)) >>> 0;
  return high * TWO_32 + low;
}

function polyMod(c: number, value: number): number {
  const top = Math.floor(c / TWO_35);
  let next = (c % TWO_35) * 32 + value;
  for (let bit = 0; bit < 5; bit++) {
    const generator = GENERATORS[bit];
    if ((top >> bit) & 1 && generator !== undefined) next = xor40(next, generator);
  }
  return next;
}

export function descriptorChecksum(descriptor: string): string {
  let c = 1;
  let groupClass = 0;
  let groupCount = 0;
  for (const ch of descriptor) {
    const position = INPUT_CHARSET.indexOf(ch);
    if (position === -1) throw new RangeError(`character ${ch} cannot appear in a descriptor`);
    c = polyMod(c, position & 31);
    groupClass = groupClass * 3 + (position >> 5);
    if (++groupCount === 3) {
      c = polyMod(c, groupClass);
      groupClass = 0;
      groupCount = 0;
    }
  }
  if (groupCount > 0) c = polyMod(c, groupClass);
  for (let j = 0; j < 8; j++) c = polyMod(c, 0);
  c = xor40(c, 1);
  let checksum = "";
  for (let j = 0; j < 8; j++) checksum += CHECKSUM_CHARSET[Math.floor(c / 2 ** (5 * (7 - j))) & 31];
  return checksum;
}

export function withChecksum(descriptor: string): string {
  return `${descriptor}#${descriptorChecksum(descriptor)}`;
}
