import { ConfigError } from "@mp/core";
import { generateMnemonic as generateBip39Mnemonic, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";

const WORD_COUNTS = new Set([12, 15, 18, 21, 24]);
const WORDS = new Set(wordlist);

/**
 * Mnemonics known to the whole world (BIP-39 and BIP-84 test vectors, the Hardhat/anvil default).
 * Fine for tests and local sandboxes; anything sent to them in production is lost to whoever looks.
 */
const PUBLIC_TEST_MNEMONICS = new Set([
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
  "test test test test test test test test test test test junk",
  `${"abandon ".repeat(23)}art`,
  "legal winner thank year wave sausage worth useful legal winner thank yellow",
  `${"zoo ".repeat(11)}wrong`,
]);

/** Single spaces between lowercase words, as BIP-39 word lists spell them (files often end in a newline). */
export function normalizeMnemonic(text: string): string {
  return text.normalize("NFKD").trim().toLowerCase().split(/\s+/).join(" ");
}

/**
 * What is wrong with a normalised English BIP-39 mnemonic, or null when it is valid. The answer
 * never repeats a word of it: it ends up in logs and on the operator's terminal.
 */
export function mnemonicProblem(mnemonic: string): string | null {
  const words = mnemonic.length === 0 ? [] : mnemonic.split(" ");
  if (!WORD_COUNTS.has(words.length)) {
    return `is not a BIP-39 mnemonic: expected 12, 15, 18, 21 or 24 words, found ${words.length}`;
  }
  const unknown = words.findIndex((word) => !WORDS.has(word));
  if (unknown >= 0) return `is not a BIP-39 mnemonic: word ${unknown + 1} is not in the English word list`;
  if (!validateMnemonic(mnemonic, wordlist)) {
    return "is not a valid BIP-39 mnemonic: its checksum does not match (a word is wrong or out of place)";
  }
  return null;
}

/** Throws ConfigError(setting) when the mnemonic is not valid; see mnemonicProblem. */
export function assertValidMnemonic(setting: string, mnemonic: string): void {
  const problem = mnemonicProblem(mnemonic);
  if (problem !== null) throw new ConfigError(setting, problem);
}

export function isPublicTestMnemonic(mnemonic: string): boolean {
  return PUBLIC_TEST_MNEMONICS.has(mnemonic);
}

/** A fresh 24-word mnemonic (256 bits of entropy from the platform CSPRNG). */
export function generateMnemonic(): string {
  return generateBip39Mnemonic(wordlist, 256);
}
