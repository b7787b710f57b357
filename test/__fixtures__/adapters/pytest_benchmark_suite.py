import pytest

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

@pytest.mark.parametrize("n", [8, 12])
def test_fib(benchmark, n):
    benchmark(fib, n)

def test_sorted(benchmark):
    data = list(range(1000, 0, -1))
    assert benchmark(sorted, data)[0] == 1
