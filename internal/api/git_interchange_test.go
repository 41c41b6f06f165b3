package api_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/gitws/gittest"
	"github.com/desk-dev/desk/internal/sandbox"
)

// interchangeEnv is the identity of both gits (gittest.Identity: fixed
// dates make the ids the same whichever git commits), LANG and HOME.
var interchangeEnv = func() map[string]string {
	env := maps.Clone(gittest.Identity)
	env["LANG"], env["HOME"] = "C", "/tmp"
	return env
}()

// TestGit_interchange works on one repository in the workspace with the
// shell backend's git (package gitws on the store) and the real git in
// the sandbox (on the FUSE mount): each sees the other's commits at once,
// the real git's fsck finds nothing wrong, and a merge conflict left by
// one is resolved by the other.
func TestGit_interchange(t *testing.T) {
	ctx := context.Background()
	c, _ := sandboxAPI(t, "desk-api-git-test")
	if _, err := c.CreateWorkspace(ctx, "g"); err != nil {
		t.Fatal(err)
	}

	// run runs script on backend in /workspace/r and returns its stdout;
	// the exit status must be want.
	run := func(backend string, want int, script string) string {
		t.Helper()
		res, err := c.Run(ctx, "g", client.ExecRequest{Source: script, Backend: backend, Cwd: "/workspace/r", Env: interchangeEnv})
		if err != nil {
			t.Fatalf("%s: %s: %v", backend, script, err)
		}
		if res.Backend != backend {
			t.Fatalf("%s: ran on %s", script, res.Backend)
		}
		if res.ExitCode != want {
			t.Fatalf("%s: %s: exit %d, want %d\nstdout: %s\nstderr: %s", backend, script, res.ExitCode, want, res.Stdout, res.Stderr)
		}
		return res.Stdout
	}
	eq := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
		}
	}
	if _, err := c.Run(ctx, "g", client.ExecRequest{Source: "mkdir -p /workspace/r", Backend: "shell"}); err != nil {
		t.Fatal(err)
	}

	// Committed in the shell, read by the real git in the sandbox.
	run("shell", 0, "git init -q -b main && printf 'one\\ntwo\\nthree\\n' > a.txt && mkdir d && echo x > d/x.txt && git add -A && git commit -qm 'from shell'")
	shellLog := run("shell", 0, "git log --format='%H %T %s'")
	eq("sandbox log", run(sandbox.ID, 0, "git log --format='%H %T %s'"), shellLog)
	run(sandbox.ID, 0, "git fsck --strict --no-progress")
	eq("sandbox status", run(sandbox.ID, 0, "git status --porcelain"), "")

	// Committed by the real git in the sandbox, read in the shell.
	run(sandbox.ID, 0, "echo four >> a.txt && echo y > d/y.txt && git add -A && git commit -qm 'from sandbox'")
	eq("shell log", run("shell", 0, "git log --format='%H %T %s'"), run(sandbox.ID, 0, "git log --format='%H %T %s'"))
	eq("shell log subjects", run("shell", 0, "git log --format=%s"), "from sandbox\nfrom shell\n")
	eq("shell status", run("shell", 0, "git status --porcelain"), "")
	eq("shell diff", run("shell", 0, "git diff HEAD~1 --stat"), " a.txt   | 1 +\n d/y.txt | 1 +\n 2 files changed, 2 insertions(+)\n")

	// A conflict made in the shell, resolved in the sandbox.
	run("shell", 0, "git switch -q -c topic && sed -i 's/two/TWO topic/' a.txt && git commit -qam topic && git switch -q main && sed -i 's/two/TWO main/' a.txt && git commit -qam main")
	out := run("shell", 1, "git merge topic")
	if !strings.Contains(out, "CONFLICT (content): Merge conflict in a.txt") {
		t.Fatalf("shell merge: %q", out)
	}
	eq("sandbox sees the conflict", run(sandbox.ID, 0, "git status --porcelain"), "UU a.txt\n")
	eq("sandbox sees the markers", run(sandbox.ID, 0, "grep -c '^<<<<<<< HEAD$' a.txt"), "1\n")
	run(sandbox.ID, 0, "sed -i -e '/^<<<<<<< /d' -e '/^=======$/d' -e '/^>>>>>>> /d' -e '/TWO topic/d' a.txt && git add a.txt && git commit -q --no-edit")
	eq("merge parents", run("shell", 0, "git log -n1 --format=%P | wc -w"), "2\n")
	eq("shell after the sandbox's resolution", run("shell", 0, "git status --porcelain && cat a.txt"), "one\nTWO main\nthree\nfour\n")
	run(sandbox.ID, 0, "git fsck --strict --no-progress")

	// A conflict made in the sandbox, resolved in the shell.
	run(sandbox.ID, 0, "git switch -q -c other && echo 'other x' > d/x.txt && git commit -qam other && git switch -q main && echo 'main x' > d/x.txt && git commit -qam 'main x'")
	run(sandbox.ID, 1, "git merge other")
	eq("shell sees the conflict", run("shell", 0, "git status --porcelain"), "UU d/x.txt\n")
	run("shell", 0, "echo 'both x' > d/x.txt && git add d/x.txt && git commit -qm 'merge other'")
	eq("sandbox after the shell's resolution", run(sandbox.ID, 0, "git status --porcelain && git log -n1 --format='%s %P' | wc -w && cat d/x.txt"), "4\nboth x\n")
	run(sandbox.ID, 0, "git fsck --strict --no-progress")
	eq("both logs", run("shell", 0, "git log --format='%H %T %s'"), run(sandbox.ID, 0, "git log --format='%H %T %s'"))

	// A stash pushed in the shell is listed and popped by the real git in
	// the sandbox, and one pushed there is popped in the shell.
	run("shell", 0, "echo wip >> a.txt && echo new > n.txt && git stash -q -u -m 'shell wip'")
	eq("sandbox stash list", run(sandbox.ID, 0, "git stash list"), "stash@{0}: On main: shell wip\n")
	eq("sandbox stash show", run(sandbox.ID, 0, "git stash show --include-untracked"), " a.txt | 1 +\n n.txt | 1 +\n 2 files changed, 2 insertions(+)\n")
	run(sandbox.ID, 0, "git stash pop -q")
	eq("sandbox after pop", run(sandbox.ID, 0, "git status --porcelain && git stash list"), " M a.txt\n?? n.txt\n")
	run(sandbox.ID, 0, "git fsck --strict --no-progress")
	run(sandbox.ID, 0, "git add n.txt && git stash -q")
	short := run("shell", 0, "git rev-parse --short HEAD")
	eq("shell stash list", run("shell", 0, "git stash list"), "stash@{0}: WIP on main: "+strings.TrimSpace(short)+" merge other\n")
	run("shell", 0, "git stash pop -q --index")
	eq("shell after pop", run("shell", 0, "git status --porcelain && git stash list"), " M a.txt\nA  n.txt\n")
	run(sandbox.ID, 0, "git fsck --strict --no-progress")
	eq("sandbox status after the shell's pop", run(sandbox.ID, 0, "git status --porcelain"), " M a.txt\nA  n.txt\n")

	// HEAD's reflog is written in git's words on both sides: checkout -,
	// NAME@{N} and the reflog itself agree whichever git wrote it.
	run("shell", 0, "git checkout -q -b side && git checkout -q main")
	eq("sandbox checkout -", run(sandbox.ID, 0, "git checkout -q - && git branch --show-current"), "side\n")
	eq("shell checkout -", run("shell", 0, "git checkout -q - && git branch --show-current"), "main\n")
	eq("reflogs", run("shell", 0, "git reflog -n 4 && git rev-parse HEAD@{2}"), run(sandbox.ID, 0, "git reflog -n 4 && git rev-parse HEAD@{2}"))
	run(sandbox.ID, 0, "git tag v1 && git checkout -q v1")
	eq("detached at a tag", run("shell", 0, "git status | head -1"), run(sandbox.ID, 0, "git status | head -1"))
}
