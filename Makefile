# desk — make targets for a fresh Debian machine.
#
#   make run         check Go, install what running needs (runc, for the
#                    sandbox backend), build desk and run `desk serve` in the
#                    foreground (data in ./desk-data)
#   make test        install what the tests need too (test-setup), then vet,
#                    staticcheck and every test: go test ./..., most of it
#                    under the race detector (CI runs exactly this, via .ci/run)
#   make setup       the run set-up alone: check Go, install runc
#   make test-setup  setup, plus the tests' reference tools, the programs the
#                    sandbox workloads and the examples run and the MCP
#                    end-to-end test's npm packages
#   make examples-setup  setup, plus what the runnable examples (examples/)
#                    run in the sandbox: pandoc and TeX, node and npm,
#                    python3, git
#   make bench-setup setup, plus the external filesystem benchmarks' tools
#                    (bindfs, dbench: see docs/benchmarks.md)
#   make build       build ./bin/desk
#   make install     build desk and install it on PATH ($(PREFIX)/bin/desk)
#   make demo        build desk and run the store demo: import this tree, check, export, compare

# Debian packages running desk needs beyond Go: runc, the OCI runtime of the
# sandbox backend (desk serve offers the sandbox when it runs as root with
# runc, user namespaces and /dev/fuse; without it the shell and js backends
# still run). `make setup` installs whichever are missing.
RUN_APT_PACKAGES := runc

# Debian packages only the tests need: the real tools the shell backend's
# compatibility tests compare against, Node.js, which the js backend's
# differential tests compare against (Node 20 or newer: where Debian's is
# older, install NodeSource's nodejs package first), and libc's headers for
# the sandbox's C workloads, and what the sandbox's pandoc → PDF test needs
# besides pandoc and pdflatex (SANDBOX_TOOLS): LaTeX's recommended packages,
# the Latin Modern fonts of pandoc's default template and pdftotext
# (poppler-utils) to read the PDF back (pandoc and TeX themselves come with
# the examples' set-up, EXAMPLES_APT_PACKAGES). curl and wget are the
# references of the shell's curl and wget, bc of its bc. `make test-setup` installs
# whichever are missing.
TEST_APT_PACKAGES := tree jq bc file binutils patch bsdextrautils mawk diffutils gzip tar util-linux bash coreutils findutils grep sed ripgrep nodejs libc6-dev poppler-utils curl wget

# Programs the sandbox's workload tests and `desk bench fs` run inside the
# sandbox, which sees the host's /usr read-only (so a python3 under ~/.pyenv
# or a node under ~/.nvm does not count): COMMAND:PACKAGE, the package
# `make test-setup` installs when /usr/bin/COMMAND is missing. (NodeSource's
# nodejs brings its own npm; Debian's nodejs needs the npm package.)
SANDBOX_TOOLS := gcc:gcc make:make pip3:python3-pip busybox:busybox-static curl:curl

# What the runnable examples (examples/README.md) run in the sandbox, which
# sees the host's /usr: pandoc with TeX as its PDF engine (examples/pdf; TeX's
# recommended packages and the Latin Modern fonts of pandoc's default
# template), git, node and npm (examples/publish), python3
# (examples/go-client); the sandbox's own tests run them too. `make
# examples-setup` installs whichever are missing: not part of `make run`,
# because pandoc and TeX alone took 41 s to install with apt-get update on a
# Debian 12 machine and 368 MB of disk.
EXAMPLES_APT_PACKAGES := texlive-latex-recommended lmodern
EXAMPLES_TOOLS := pandoc:pandoc pdflatex:texlive-latex-base git:git node:nodejs npm:npm python3:python3

# The MCP end-to-end test drives desk with the official TypeScript client,
# pinned by this directory's package-lock.json (npm registry only);
# test-setup runs npm ci when the lock file is newer than the install (npm
# writes node_modules/.package-lock.json).
E2E_NPM := cmd/desk/e2e/testdata
E2E_NPM_STAMP := $(E2E_NPM)/node_modules/.package-lock.json

# Where `make install` puts desk: $(PREFIX)/bin (with sudo when it is not
# writable); make install PREFIX=$$HOME/.local for a per-user install.
PREFIX ?= /usr/local

# The oldest Go toolchain that builds the module (go.mod says go 1.26.8).
GO_MIN := 1.26

BIN  := bin/desk
DATA := desk-data
DEMO_DB := $(DATA)/demo.db

.PHONY: setup test-setup test-packages fs-suites-packages examples-setup bench-setup build run install demo test clean

# apt_install installs the Debian packages $(1) and, for each COMMAND:PACKAGE
# of $(2) whose /usr/bin/COMMAND is missing, PACKAGE, when not installed yet
# (with sudo unless root).
define apt_install
	@missing=""; \
	for p in $(1); do \
		dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	for t in $(2); do \
		[ -x "/usr/bin/$${t%%:*}" ] || missing="$$missing $${t#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
		echo "$@: installing$$missing"; \
		$$sudo apt-get update && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing; \
	else \
		echo "$@: present: $(strip $(1) $(foreach t,$(2),$(firstword $(subst :, ,$(t)))))"; \
	fi
endef

# setup: what building and running desk needs.
setup:
	$(call apt_install,$(RUN_APT_PACKAGES),)
	@if ! command -v go >/dev/null 2>&1; then \
		echo "setup: Go is not on PATH. desk needs Go $(GO_MIN) or newer:"; \
		if [ -x /usr/local/go/bin/go ]; then echo "  it is installed in /usr/local/go: export PATH=/usr/local/go/bin:\$$PATH"; \
		else echo "  download go$(GO_MIN).x for linux from https://go.dev/dl/, then"; \
		     echo "  sudo tar -C /usr/local -xzf go$(GO_MIN).*.linux-*.tar.gz && export PATH=/usr/local/go/bin:\$$PATH"; fi; \
		exit 1; \
	fi; \
	v=$$(go env GOVERSION | sed 's/^go//'); \
	if [ "$$(printf '%s\n%s\n' "$(GO_MIN)" "$$v" | sort -V | head -n1)" != "$(GO_MIN)" ]; then \
		echo "setup: Go $$v is too old; desk needs Go $(GO_MIN) or newer."; \
		echo "  Debian's golang package is usually older: get go$(GO_MIN).x from https://go.dev/dl/"; \
		echo "  (or, with a newer go already installed: GOTOOLCHAIN=go$(GO_MIN).0 go version)"; \
		exit 1; \
	fi; \
	echo "setup: go $$v ok"

# test-setup: setup, plus what only the tests (and the examples, which are
# tests too) need.
test-setup: setup examples-setup test-packages fs-suites-packages $(E2E_NPM_STAMP)

# The external filesystem suites internal/fusefs/suites runs through a desk
# mount: stress-ng, fio, and CPython's test suite for /usr/bin/python3 (which
# examples-setup installs): its package is named after the version.
FS_SUITES_APT_PACKAGES := stress-ng fio libpython$$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')-testsuite
fs-suites-packages: examples-setup
	$(call apt_install,$(FS_SUITES_APT_PACKAGES),)

# bench-setup: setup, plus the tools the FUSE mount's comparisons use
# (internal/fusefs's benchmarks): bindfs, a plain FUSE passthrough, and
# dbench; and GNU awk, the reference of the shell's awk rows in
# BenchmarkRealSize (internal/shell; Debian then points /usr/bin/awk at
# gawk, and the awk tests name mawk, so they do not change). Neither the
# tests nor running desk need them.
BENCH_APT_PACKAGES := bindfs dbench gawk
bench-setup: setup
	$(call apt_install,$(BENCH_APT_PACKAGES),)

# examples-setup: setup, plus what the examples run in the sandbox.
examples-setup: setup
	$(call apt_install,$(EXAMPLES_APT_PACKAGES),$(EXAMPLES_TOOLS))

test-packages:
	$(call apt_install,$(TEST_APT_PACKAGES),$(SANDBOX_TOOLS))

$(E2E_NPM_STAMP): $(E2E_NPM)/package-lock.json | test-packages
	npm ci --prefix $(E2E_NPM) --no-audit --no-fund --loglevel=error

# build makes a static desk (CGO_ENABLED=0: desk needs no C code), so that
# the binary, which is also the sandbox's init, runs in an OCI image without
# a C library like the host's (alpine, distroless, busybox).
build:
	CGO_ENABLED=0 go build -o $(BIN) ./cmd/desk

# run starts the server in the foreground: the HTTP API on 127.0.0.1:7878,
# workspaces and tokens in ./desk-data, the admin token printed on the first
# start and written with the URL to the user's desk config file, so that
# ./bin/desk ws/fs/exec/changes in another terminal reach it. Ctrl-C stops it
# gracefully. Extra flags: make run ARGS='--addr 127.0.0.1:9000'.
run: setup build
	./$(BIN) serve --data $(DATA) $(ARGS)

# install puts desk on PATH: $(PREFIX)/bin/desk (the MCP snippets of the
# README run `desk`), with sudo when that directory is not writable.
install: build
	@dir="$(DESTDIR)$(PREFIX)/bin"; sudo=""; \
	mkdir -p "$$dir" 2>/dev/null || true; \
	[ -w "$$dir" ] || { [ "$$(id -u)" -eq 0 ] || sudo="sudo"; }; \
	$$sudo install -D -m 0755 $(BIN) "$$dir/desk" && echo "install: $$dir/desk"; \
	case ":$$PATH:" in *":$$dir:"*) ;; *) echo "install: $$dir is not on PATH; add it: export PATH=$$dir:\$$PATH";; esac

# demo shows the store on its own: the repository's own source tree goes into
# a fresh workspace database through a PAX tar stream, the store checks
# itself, reports its stats and draws its tree, and the tree exported back out
# is compared with the source by tar --compare (contents, modes, owners,
# mtimes, symlink targets).
demo: build
	@mkdir -p -m 0700 $(DATA)
	rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	tar --format=posix --exclude=./.git --exclude=./$(DATA) --exclude=./bin --exclude='*.test' --exclude='*.prof' -cf - . \
		| ./$(BIN) fs -db $(DEMO_DB) import -C /desk -
	./$(BIN) fs -db $(DEMO_DB) check
	./$(BIN) fs -db $(DEMO_DB) stats
	./$(BIN) fs -db $(DEMO_DB) tree / | head -n 40
	./$(BIN) fs -db $(DEMO_DB) export -q -C /desk | tar --compare -f - -C .
	@echo "demo: the exported tree matches the source tree"
	@echo
	@echo "demo: the workspace is $(DEMO_DB); try: ./$(BIN) fs -db $(DEMO_DB) ls -l /desk"

# test checks and runs everything: go vet, staticcheck (pinned by the tool
# line in go.mod, so every machine runs the same version), then every package's
# tests with -count=1 (no cached results), all of them under the race detector
# except the shell backend's: its compatibility tables run thousands of
# interpreter instances, and under -race internal/shell hit go test's
# 10-minute timeout on this 2-core machine (measured while it was loaded), while
# the concurrency they exercise (pipelines, the store) is raced through the
# tools, api, mcp and run tests, which run shell executions. RACE_EXCLUDE is a grep -E pattern of import
# paths kept off the race detector; a new package is raced by default.
# internal/fusefs/suites is kept off too: its work is external programs
# (stress-ng, fio, python, go test) against a mount whose server is raced by
# internal/fusefs's own tests, and under -race it took 9 of CI's minutes.
# -timeout 20m is each package's hang guard: the slowest packages (cmd/desk,
# jsvm, fsio) take 4-7 minutes under -race on this machine when it is
# shared, and go test's default 10 minutes was met under a load of 20.
RACE_EXCLUDE := /internal/shell(/|$$)|/internal/fusefs/suites$$

# TEST_FIRST are the packages whose tests take longest (docs/benchmarks.md,
# "CI's time"), slowest first: go test starts the packages it is given in
# that order, -p at a time, so these start at once instead of leaving one
# long package alone at the end (cmd/desk came third of 66 but
# internal/jsvm 34th). A package not listed keeps its place in go list's
# order after them; a listed one that is gone is an error (go list fails).
TEST_FIRST := ./cmd/desk ./internal/jsvm ./internal/shell ./internal/fusefs/suites \
	./internal/sandbox ./internal/search ./internal/vfs ./internal/jsvm/qjs ./internal/run \
	./internal/tools ./internal/api ./internal/fsio ./internal/shell/cmds ./internal/shell/interp

# The race and non-race parts run at once: each alone leaves a core idle
# behind its last long package (and internal/shell, the longest without
# -race, would otherwise start only after the whole race part). The
# non-race part's output is printed when both are done.
test: test-setup
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go tool staticcheck ./...
	@set -u; first=$$(go list $(TEST_FIRST)) || exit 1; \
	pkgs=$$( { echo "$$first"; go list ./... | grep -vxF "$$first"; } ); \
	race=$$(echo "$$pkgs" | grep -Ev '$(RACE_EXCLUDE)'); norace=$$(echo "$$pkgs" | grep -E '$(RACE_EXCLUDE)'); \
	log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	echo "go test -count=1 -timeout 20m (without -race): $$(echo $$norace | sed 's|github.com/desk-dev/desk/||g') (output below when done)"; \
	go test -count=1 -timeout 20m $$norace >"$$log" 2>&1 & bg=$$!; \
	echo "go test -count=1 -timeout 20m -race: the other $$(echo "$$race" | wc -l) packages"; \
	go test -count=1 -timeout 20m -race $$race; rc=$$?; \
	wait $$bg; nrc=$$?; \
	echo "--- without -race:"; cat "$$log"; \
	[ $$rc -eq 0 ] && [ $$nrc -eq 0 ]

clean:
	rm -rf bin $(DATA)
