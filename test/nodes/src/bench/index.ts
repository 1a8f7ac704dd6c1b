export {
  type BenchBlocks,
  type BenchNode,
  type BenchNodeReady,
  type BenchNodeRequest,
  type BenchTransaction,
  type ForkedScanBenchResult,
  runForkedScanBench,
  serveBenchNode,
  xorshift,
} from "./forked-scan-bench.ts";
