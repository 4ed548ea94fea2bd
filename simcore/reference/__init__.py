"""Plain-Python reference engines: the rules written for reading, used as oracles for the compiled kernels."""
