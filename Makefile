.PHONY: build test bench

build:
	go build -o dbharness ./cmd/dbharness

test:
	bash scripts/test.sh

bench: build
	bash bench/vs-pgbench.sh
