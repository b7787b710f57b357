#include <benchmark/benchmark.h>
#include <algorithm>
#include <numeric>
#include <vector>

static void BM_Sort(benchmark::State& state) {
  std::vector<int> v(state.range(0));
  for (auto _ : state) {
    std::iota(v.rbegin(), v.rend(), 0);
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * state.range(0) * sizeof(int));
}
BENCHMARK(BM_Sort)->Arg(256)->Arg(4096);

static void BM_Accumulate(benchmark::State& state) {
  std::vector<double> v(1024, 1.5);
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0.0));
  state.counters["sum_calls"] = benchmark::Counter(state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Accumulate)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
