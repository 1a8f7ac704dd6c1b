import type { Address, Hex } from "viem";

export interface AnvilAccount {
  address: Address;
  privateKey: Hex;
}

/**
 * The first dev accounts anvil funds at start (10,000 ETH each), derived from its public default
 * mnemonic "test test test test test test test test test test test junk" at m/44'/60'/0'/0/i.
 * Account 0 deploys the test tokens (so it holds their supply) and is the local sandbox faucet.
 * Public keys: for local chains only, never anywhere value is real.
 */
export const ANVIL_ACCOUNTS: readonly [AnvilAccount, ...AnvilAccount[]] = [
  {
    address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  },
  {
    address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    privateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  },
  {
    address: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    privateKey: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  },
];

/** Account 0: deployer, token treasury and faucet of the local sandbox. */
export const ANVIL_DEPLOYER: AnvilAccount = ANVIL_ACCOUNTS[0];
