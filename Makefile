# payport — make targets. `make run` starts the service on the embedded
# SQLite default; `make test` runs the whole test suite.
GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2

.PHONY: run build test lint bench tools

run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/payport serve

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/payport ./cmd/payport

test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

lint: tools
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$$($(GO) env GOPATH)/bin/staticcheck ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

tools:
	@test -x "$$($(GO) env GOPATH)/bin/staticcheck" || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
