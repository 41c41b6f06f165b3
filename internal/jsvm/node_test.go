package jsvm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/testenv"
)

// The differential tests run modules under the real Node.js as well. Node
// 20 or newer is needed; without it they are skipped, unless
// DESK_REQUIRE_NODE=1 (CI), when they fail.

// nodeBinary returns the path of node, or skips (fails under
// DESK_REQUIRE_NODE=1) when there is none recent enough.
func nodeBinary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err == nil {
		out, verr := exec.Command(p, "--version").Output()
		m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(out)
		if verr == nil && m != nil {
			if major, _ := strconv.Atoi(string(m[1])); major >= 20 {
				return p
			}
		}
		err = errTooOld
	}
	testenv.Need(t, testenv.Node, fmt.Errorf("no node 20 or newer: %w", err))
	return ""
}

type nodeErr string

func (e nodeErr) Error() string { return string(e) }

const errTooOld = nodeErr("node is older than 20")

// runNode runs the module src with node in dir (umask 022, the environment
// given), and returns its stdout, stderr and exit code.
func runNode(t testing.TB, dir, src, stdin string, env []string) (string, string, int) {
	t.Helper()
	return runNodeFile(t, dir, filepath.Join(t.TempDir(), "main.mjs"), src, stdin, env)
}

// runNodeFile writes src to the file f and runs it with node in dir.
func runNodeFile(t testing.TB, dir, f, src, stdin string, env []string) (string, string, int) {
	t.Helper()
	node := nodeBinary(t)
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", `umask 022; exec "$0" "$1"`, node, f)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run node: %v", err)
	}
	return out.String(), errb.String(), code
}

// diffLines reports the lines of got and want that differ.
func diffLines(t testing.TB, what, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	bad := 0
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			bad++
			if bad <= 40 {
				t.Errorf("%s line %d:\n  desk: %s\n  node: %s", what, i+1, gl, wl)
			}
		}
	}
	if bad > 40 {
		t.Errorf("%s: %d more lines differ", what, bad-40)
	}
}
