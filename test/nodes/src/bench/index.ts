export {
  type BenchNodeReady,
  type BenchNodeRequest,
  type ForkedScanBenchResult,
  runForkedScanBench,
  serveBenchNode,
  xorshift,
} from "./forked-scan-bench.ts";
