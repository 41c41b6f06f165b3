package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/gitws/gittest"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
)

// gitReadSteps are git's read-heavy commands timed in a work tree: the
// first status after the tree was copied (new inodes: git re-reads every
// file to refresh its index), a warm status, git grep over the work tree
// (twice), and the whole history with patches.
var gitReadSteps = [][2]string{
	{"status-first", "git status --porcelain"},
	{"status-warm", "git status --porcelain"},
	{"grep", "git grep -c generation"},
	{"grep-again", "git grep -c generation"},
	{"log-p", "git log -p"},
}

// gitStepScript times one step in $DIR: "name start end" in
// $EPOCHREALTIME seconds.
func gitStepScript(name, cmd string) string {
	return `set -e
cd "$DIR"
s=$EPOCHREALTIME; ` + cmd + ` >/dev/null; echo "` + name + ` $s $EPOCHREALTIME"
`
}

// BenchmarkFUSE_GitRead runs gitReadScript with the real git in the sandbox
// on the workspace's FUSE mount and on ext4 (a copy of the same clone in a
// temporary directory, cp -a: new inodes, as the import into the store
// gives), over a repository of 10,000 files and 50 commits (issue 20's), and
// reports each command's time on the mount as a ratio to ext4 in the same
// run (name-x-ext4) beside its milliseconds on the mount; each command is
// one execution, and with -v the requests the mount served for it are
// logged (fusefs.Tracer). Run it with -benchtime 1x: the first status is
// first only once.
func BenchmarkFUSE_GitRead(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Need(b, testenv.Sandbox, fmt.Errorf("no git on the host: %w", err))
	}
	tr := fusefs.NewTracer()
	e := newFUSEEnv(b, Options{FUSE: fusefs.Options{Tracer: tr}})
	root := b.TempDir()
	bare := filepath.Join(root, "src.git")
	gittest.Big(b, bare, gittest.BigRepo{Files: 10000, Commits: 50, Dirs: 100})
	gittest.Git(b, root, "clone", "-q", bare, filepath.Join(root, "big"))
	env := map[string]string{"DIR": "/workspace/big", "HOME": "/workspace", "LANG": "C", "LC_ALL": "C"}
	for k, v := range gittest.Identity {
		env[k] = v
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ws := fmt.Sprintf("/workspace/big%d", i)
		host := filepath.Join(root, fmt.Sprintf("copy%d", i))
		gittest.Import(b, e.fs, filepath.Join(root, "big"), ws)
		if out, err := exec.Command("cp", "-a", filepath.Join(root, "big"), host).CombinedOutput(); err != nil {
			b.Fatalf("cp -a: %v: %s", err, out)
		}
		b.StartTimer()
		env["DIR"] = ws
		var boxOut, extOut strings.Builder
		for _, st := range gitReadSteps {
			script := gitStepScript(st[0], st[1])
			before := tr.Stats()
			c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			x, err := e.r.Exec(c, script, run.ExecOptions{Env: env, Timeout: 10 * time.Minute, OutputLimit: 1 << 20})
			if err != nil {
				b.Fatal(err)
			}
			res, err := x.Wait(c)
			cancel()
			if err != nil {
				b.Fatal(err)
			}
			if res.Status != run.StatusCompleted || res.ExitCode != 0 {
				b.Fatalf("%s in the sandbox: %s, exit %d: %s", st[0], res.Status, res.ExitCode, res.Stderr)
			}
			boxOut.WriteString(res.Stdout)
			var tb strings.Builder
			tr.Stats().Sub(before).Format(&tb, 1)
			b.Logf("%s: the mount's requests\n%s", st[0], tb.String())
			b.StopTimer()
			out, errOut, code := gittest.Bash(b, host, map[string]string{"DIR": host}, script)
			if code != 0 {
				b.Fatalf("%s on ext4: exit %d: %s", st[0], code, errOut)
			}
			extOut.WriteString(out)
			b.StartTimer()
		}
		b.StopTimer()
		box, ext := scriptTimes(b, boxOut.String()), scriptTimes(b, extOut.String())
		for _, n := range []string{"status-first", "status-warm", "grep", "grep-again", "log-p"} {
			b.ReportMetric(box[n]/ext[n], n+"-x-ext4")
			b.ReportMetric(box[n]*1e3, n+"-ms")
		}
		b.StartTimer()
	}
}

// scriptTimes parses gitReadScript's output: seconds by name.
func scriptTimes(b *testing.B, out string) map[string]float64 {
	m := map[string]float64{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			b.Fatalf("script output line %q", l)
		}
		s, err1 := strconv.ParseFloat(f[1], 64)
		e, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("script output line %q", l)
		}
		m[f[0]] = e - s
	}
	return m
}
