# desk — make targets for a fresh Debian machine.
#
#   make setup   install the system packages the build and tests need, check Go
#   make build   build ./bin/desk
#   make run     build desk and run `desk serve` in the foreground (data in ./desk-data)
#   make demo    build desk and run the store demo: import this tree, check, export, compare
#   make test    vet, staticcheck, then every test: go test ./..., most of it under
#                the race detector (CI runs exactly this, via .ci/run)

# Debian packages the tests need beyond Go: the real tools the shell backend's
# compatibility tests compare against, runc (the OCI runtime of the sandbox
# backend), and Node.js, which the js backend's differential tests compare
# against (they need Node 20 or newer: where Debian's is older, install
# NodeSource's nodejs package first). `make setup` installs whichever are
# missing.
APT_PACKAGES := tree jq file binutils patch bsdextrautils mawk diffutils gzip tar util-linux bash coreutils findutils grep sed runc ripgrep nodejs libc6-dev

# Programs the sandbox's workload tests and `desk bench fs` run inside the
# sandbox, which sees the host's /usr read-only (so a python3 under ~/.pyenv
# or a node under ~/.nvm does not count): COMMAND:PACKAGE, the package
# installed when /usr/bin/COMMAND is missing. (NodeSource's nodejs brings its
# own npm; Debian's nodejs needs the npm package.)
SANDBOX_TOOLS := git:git gcc:gcc make:make python3:python3 node:nodejs npm:npm

# The oldest Go toolchain that builds the module (go.mod says go 1.26.8).
GO_MIN := 1.26

BIN  := bin/desk
DATA := desk-data
DEMO_DB := $(DATA)/demo.db

.PHONY: setup build run demo test clean

setup:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	for t in $(SANDBOX_TOOLS); do \
		[ -x "/usr/bin/$${t%%:*}" ] || missing="$$missing $${t#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
		echo "setup: installing$$missing"; \
		$$sudo apt-get update && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing; \
	else \
		echo "setup: system packages present ($(APT_PACKAGES)), and the sandbox's tools ($(foreach t,$(SANDBOX_TOOLS),$(firstword $(subst :, ,$(t)))))"; \
	fi
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
	@# The MCP end-to-end test drives desk with the official TypeScript client,
	@# pinned by cmd/desk/e2e/testdata/package-lock.json (npm registry only).
	npm ci --prefix cmd/desk/e2e/testdata --no-audit --no-fund --loglevel=error

build:
	go build -o $(BIN) ./cmd/desk

# run starts the server in the foreground: the HTTP API on 127.0.0.1:7878,
# workspaces and tokens in ./desk-data, the admin token printed on the first
# start and written with the URL to the user's desk config file, so that
# ./bin/desk ws/fs/exec/changes in another terminal reach it. Ctrl-C stops it
# gracefully. Extra flags: make run ARGS='--addr 127.0.0.1:9000'.
run: build
	./$(BIN) serve --data $(DATA) $(ARGS)

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
RACE_EXCLUDE := /internal/shell(/|$$)

test:
	go vet ./...
	go tool staticcheck ./...
	go test -count=1 -race $$(go list ./... | grep -Ev '$(RACE_EXCLUDE)')
	go test -count=1 $$(go list ./... | grep -E '$(RACE_EXCLUDE)')

clean:
	rm -rf bin $(DATA)
