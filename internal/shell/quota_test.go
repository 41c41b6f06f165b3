package shell

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestQuota_WriteFails: output redirected to a file past the workspace's
// byte quota fails where it is written, with EDQUOT ("Disk quota
// exceeded"), under both interpreters: a builtin (echo, printf) prints
// bash's "write error" and gets status 1, a command (base64, cat) too (as
// GNU programs do at exit); the shell goes on, and the store passes its
// check with what was written before the refusal.
func TestQuota_WriteFails(t *testing.T) {
	ctx := context.Background()
	rnd := make([]byte, 700<<10) // incompressible: the quota counts stored bytes
	rand.Read(rnd)
	for _, ip := range []string{InterpMvdan, InterpDesk} {
		t.Run(ip, func(t *testing.T) {
			f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{QuotaBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.MkdirAll(ctx, "/work", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := f.WriteFile(ctx, "/work/r", rnd, 0o644); err != nil {
				t.Fatal(err)
			}
			b := New(Options{Interpreter: ip})
			for _, tc := range []struct{ script, who string }{
				{"base64 /work/r > /work/out; echo rc=$?", "base64: write error: Disk quota exceeded"},
				{"cat /work/r /work/r | base64 > /work/out; echo rc=$?", "base64: write error: Disk quota exceeded"},
				{`x=$(base64 -w0 /work/r); echo "$x" > /work/out; echo rc=$?`, "echo: write error: Disk quota exceeded"},
				{`printf '%s' "$(base64 -w0 /work/r)" > /work/out; echo rc=$?`, "printf: write error: Disk quota exceeded"},
				{`{ echo a; base64 /work/r; } >> /work/out; echo rc=$?`, "base64: write error: Disk quota exceeded"},
			} {
				r := runScript(ctx, b, f, tc.script, "")
				if r.stdout != "rc=1\n" || !strings.Contains(r.stderr, tc.who) || r.exit != 0 {
					t.Errorf("%q: stdout %q, stderr %q, exit %d %v; want rc=1 and %q", tc.script, r.stdout, r.stderr, r.exit, r.err, tc.who)
				}
				st, err := f.Statfs(ctx)
				if err != nil || st.UsedBytes > 1<<20 {
					t.Fatalf("statfs: %+v %v", st, err)
				}
				if err := f.Remove(ctx, "/work/out"); err != nil {
					t.Fatal(err)
				}
				rep, err := f.Check(ctx)
				if err != nil || !rep.OK() {
					t.Fatalf("check: %+v %v", rep, err)
				}
			}
		})
	}
}
