# fedctl's build. "make test" is what CI runs (see .ci/run and README.md).
SHELL := bash
.SHELLFLAGS := -o pipefail -ec
.DEFAULT_GOAL := build

GO      ?= go
PKG     := github.com/fedctl/fedctl
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
# kustomize's Go plugin loader imports "plugin", which makes a cgo build
# export every symbol (a 96 MB binary instead of 48 MB); fedctl runs
# kustomize with plugins disabled, so the loader is left out.
GOTAGS := kustomize_disable_go_plugin_support
LDFLAGS := -s -w -X $(PKG)/cmd.version=$(VERSION) -X $(PKG)/cmd.commit=$(COMMIT) -X $(PKG)/cmd.date=$(DATE)

# Test binaries (kube-apiserver, etcd, controllers, kwok) are built once per
# version through the Go module proxy and kept here; git ignores it.
export FEDCTL_TESTBIN_DIR ?= $(CURDIR)/.cache/testbin
# Built rather than "go run", which would turn every exit code into 1.
TESTENV := bin/fedctl-testenv
TEST_LOG := .cache/test.log

.PHONY: build install test test-unit testbin lint fuzz completions demo golden bench bench-apply bench-render bench-rollout clean $(TESTENV)

build: ## Build bin/fedctl
	$(GO) build -trimpath -tags '$(GOTAGS)' -ldflags '$(LDFLAGS)' -o bin/fedctl .

install: ## Install fedctl into GOBIN (and kubectl-fed and kubectl_complete-fed beside it, for kubectl)
	$(GO) install -trimpath -tags '$(GOTAGS)' -ldflags '$(LDFLAGS)' .
	bindir="$$($(GO) env GOBIN)"; bindir="$${bindir:-$$($(GO) env GOPATH)/bin}"; \
	ln -sf fedctl "$$bindir/kubectl-fed"; \
	install -m 0755 kubectl_complete-fed "$$bindir/kubectl_complete-fed"

$(TESTENV):
	$(GO) build -o $@ ./pkg/testenv/cmd/fedctl-testenv

testbin: $(TESTENV) ## Build or reuse the test binaries (first run: ~8 minutes on 2 cores)
	$(TESTENV) -provision-only

test: testbin ## Unit tests and end-to-end tests against real API servers
	@mkdir -p .cache; set +e; \
	$(GO) test -count=1 -timeout 30m -v ./... 2>&1 | tee $(TEST_LOG) \
		| grep --line-buffered -E '^(ok|FAIL|--- (PASS|FAIL|SKIP)|panic:|testenv:)'; \
	rc=$${PIPESTATUS[0]}; \
	if [ $$rc != 0 ]; then \
		echo "--- failures (full log: $(TEST_LOG)):"; \
		grep -vE '^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|SKIP))' $(TEST_LOG) | tail -n 400; \
	fi; \
	passed=$$(grep -cE '^\s*--- PASS' $(TEST_LOG)); \
	failed=$$(grep -cE '^\s*--- FAIL' $(TEST_LOG)); \
	skipped=$$(grep -cE '^\s*--- SKIP' $(TEST_LOG)); \
	echo "$$passed passed, $$failed failed, $$skipped skipped"; \
	exit $$rc

test-unit: ## Unit tests only: no API servers
	$(GO) test -count=1 -short ./...

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Every fuzz target in the repository, found by name so that a new one is
# never left out, each for FUZZTIME. The committed corpora under each
# package's testdata/fuzz/FuzzX/ run first, as they do in "make test";
# what the fuzzer finds interesting is kept in the Go cache between runs.
# A failure counts when the fuzzer wrote a failing input or reported
# anything else; a bare "context deadline exceeded" at the end of FUZZTIME
# is Go 1.26's coordinator race (golang/go#75804, fixed in Go 1.27), not a
# finding: the target's corpus is then replayed, and only its failure
# fails.
FUZZTIME ?= 30s

fuzz: ## Run every fuzz target for FUZZTIME (30s) each
	@mkdir -p .cache; targets=$$(grep -roE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+' pkg cmd | sed 's/:func /:/' | sort); \
	echo "fuzz: $$(echo "$$targets" | wc -l) targets, $(FUZZTIME) each"; \
	for target in $$targets; do \
		dir=./$$(dirname "$${target%%:*}"); name=$${target##*:}; \
		echo "fuzz: $$name in $$dir"; \
		if $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) "$$dir" 2>&1 | tee .cache/fuzz.log; then continue; fi; \
		if grep -q 'context deadline exceeded' .cache/fuzz.log && ! grep -qE 'Failing input written|panic:|_test.go:[0-9]+:' .cache/fuzz.log; then \
			echo "fuzz: $$name stopped on Go's -fuzztime race (golang/go#75804), nothing found; replaying its corpus"; \
			$(GO) test -count=1 -run "^$$name\$$" "$$dir" || exit 1; \
			continue; \
		fi; \
		exit 1; \
	done

BENCH_ROUNDS ?= 3
APPLY_BENCH_ROUNDS ?= 2
BENCH_CORPUS := .cache/bench-corpus

bench: bench-render bench-apply bench-rollout ## The benchmarks below

# The propagation issue's requirement: 300 FederatedDeployments to three
# local API servers, cold and no-op, against kubectl apply --server-side
# (built at the API servers' version on first use, ~1 minute more), with
# requests per member (cmd/apply/bench_test.go).
bench-apply: build testbin ## Benchmark apply against kubectl on three local API servers
	FEDCTL_BENCH_REPORT=1 FEDCTL_BENCH_ROUNDS=$(APPLY_BENCH_ROUNDS) FEDCTL_BENCH_BIN=$(CURDIR)/bin/fedctl \
		$(GO) test -count=1 -run '^TestApplyBenchReport$$' -timeout 1h -v ./cmd/apply | grep -vE '^(=== RUN|--- PASS|PASS$$)'

# The rollout issue's figure: a 3-wave apply --rollout against a plain
# apply --wait of the same 104 objects per member, cold and no-op, time and
# requests per member (cmd/rollout/overhead_test.go).
bench-rollout: testbin ## Measure apply --rollout's overhead over apply --wait on three local API servers
	FEDCTL_BENCH_REPORT=1 $(GO) test -count=1 -run '^TestRolloutOverheadReport$$' -timeout 30m -v ./cmd/rollout | grep -vE '^(=== RUN|--- PASS|PASS$$)'

# The render performance requirement: floors and render at three
# corpus sizes, interleaved over BENCH_ROUNDS rounds in one process, with the
# ratios and the peak RSS of bin/fedctl (pkg/pipeline/benchreport_test.go).
# --output-dir is also measured against writing the same files serially
# plus render -o yaml; its trees go under .cache, on the repository's disk,
# since the temporary directory can be a tmpfs.
bench-render: build ## Benchmark render against the requirement's floors; print ratios and peak RSS
	@mkdir -p .cache
	FEDCTL_BENCH_REPORT=1 FEDCTL_BENCH_ROUNDS=$(BENCH_ROUNDS) FEDCTL_BENCH_BIN=$(CURDIR)/bin/fedctl FEDCTL_BENCH_DIR=$(CURDIR)/.cache \
		$(GO) test -count=1 -run '^TestBenchReport$$' -benchtime=1x -timeout 2h -v ./pkg/pipeline | grep -vE '^(=== RUN|--- PASS|PASS$$)'
	@FEDCTL_BENCH_CORPUS=$(CURDIR)/$(BENCH_CORPUS) $(GO) test -count=1 -run '^TestWriteBenchCorpus$$' ./pkg/pipeline >/dev/null
	@if [ -x /usr/bin/time ]; then \
		echo "/usr/bin/time -v bin/fedctl render -f $(BENCH_CORPUS)/manifests --config $(BENCH_CORPUS)/federation.yaml -o yaml > /dev/null:"; \
		/usr/bin/time -v bin/fedctl render -f $(BENCH_CORPUS)/manifests --config $(BENCH_CORPUS)/federation.yaml -o yaml 2>&1 >/dev/null \
			| grep -E 'Maximum resident|Elapsed'; \
	else \
		echo "/usr/bin/time not found: the peak RSS above was read from /proc (VmHWM) while fedctl ran"; \
	fi

completions: ## Regenerate completions/ from "fedctl completion"
	@mkdir -p completions
	$(GO) run . completion bash > completions/fedctl.bash
	$(GO) run . completion zsh > completions/fedctl.zsh
	$(GO) run . completion fish > completions/fedctl.fish
	$(GO) run . completion powershell > completions/fedctl.ps1

golden: ## Rewrite golden files from the current output
	FEDCTL_UPDATE_GOLDEN=1 $(GO) test -short ./...

demo: build testbin ## Start three local API servers and show fedctl at work
	$(TESTENV) -clusters 3 -controllers -- bash testdata/demo.sh $(CURDIR)/bin/fedctl

clean:
	rm -rf bin dist
