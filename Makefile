# payport — make targets. `make run` starts the service on the embedded
# SQLite default; `make test` runs the whole test suite.
GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2

# The PostgreSQL tests use PAYPORT_TEST_POSTGRES_URL; when it is unset and a
# server answers on 127.0.0.1:5432, that one (user postgres, database test).
LOCAL_PG  := postgres://postgres@127.0.0.1:5432/test?sslmode=disable
PAYPORT_TEST_POSTGRES_URL ?= $(shell (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null && echo '$(LOCAL_PG)')
export PAYPORT_TEST_POSTGRES_URL

.PHONY: run build test test-go test-postgres test-compat lint bench tools

run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/payport serve

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/payport ./cmd/payport

# The whole suite: every package on SQLite (and the PostgreSQL engine's own
# tests and the multi-node test), the HTTP suite again on PostgreSQL, and the
# official Node client against a running payport.
test: test-go test-postgres test-compat

test-go:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

test-postgres:
	@if [ -z "$$PAYPORT_TEST_POSTGRES_URL" ] && [ "$$CI" != "true" ]; then \
		echo "PostgreSQL tests skipped: set PAYPORT_TEST_POSTGRES_URL=postgres://… to run them"; \
	else \
		echo "PAYPORT_TEST_ENGINE=postgres go test -race -count=1 ./httpapi/"; \
		PAYPORT_TEST_ENGINE=postgres $(GO) test -race -count=1 ./httpapi/; \
	fi

test-compat:
	bash compat/run.sh

lint: tools
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$$($(GO) env GOPATH)/bin/staticcheck ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

tools:
	@test -x "$$($(GO) env GOPATH)/bin/staticcheck" || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
