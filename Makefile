.PHONY: build test test-short bench

build:
	go build -o dbharness ./cmd/dbharness

test:
	bash scripts/test.sh

# The unit subset: parsers, statistics, histogram merge, report goldens and
# the import rule, without any server, in under a minute. Tests that need a
# server, a browser, Prometheus, perf, namespaces or mounts skip.
test-short:
	go test -short ./...

bench: build
	bash bench/vs-pgbench.sh
