package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
)

// TestLimits_Serve: a workspace's own limits (desk ws limits, PUT
// …/limits), with workers and without: set by the admin over the server's
// values, they bind the open store at once (a PUT over the lowered quota
// is 403 EDQUOT and leaves nothing, the shell's write fails with "Disk
// quota exceeded", a create past the inode bound too), bind only their
// workspace, hold the executions per minute (429 too_many naming desk ws
// limits), survive a restart of the server (the store opens with them),
// and --reset gives the server's back. A workspace token may read them
// but not set them; a malformed value is a usage error.
func TestLimits_Serve(t *testing.T) {
	for _, workers := range []string{"true", "false"} {
		t.Run("workers="+workers, func(t *testing.T) {
			t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
			data := filepath.Join(t.TempDir(), "data")
			args := []string{"--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn", "--workers=" + workers, "--workspace-max-bytes", "67108864"}
			u, _, stop := startServe(t, args...)
			mustDesk(t, nil, "ws", "create", "demo")
			mustDesk(t, nil, "ws", "create", "other")
			ctx := context.Background()
			c, err := client.FromEnvironment(client.Options{})
			if err != nil {
				t.Fatal(err)
			}
			put := func(ws, p string) error {
				big := make([]byte, 2<<20) // unique bytes: the quota counts unique content
				rand.Read(big)
				_, err := c.WriteFile(ctx, ws, p, bytes.NewReader(big), client.WriteOptions{})
				return err
			}
			edquot := func(err error) bool {
				var ce *client.Error
				return errors.As(err, &ce) && ce.Status == http.StatusForbidden && ce.Code == "EDQUOT"
			}
			// The open store (the first PUT opened it) takes the new quota.
			if err := put("demo", "/workspace/a.bin"); err != nil {
				t.Fatal(err)
			}
			out := mustDesk(t, nil, "ws", "limits", "demo", "--max-bytes", "3145728", "--max-inodes", "50", "--max-execs-per-minute", "3", "--max-cpu-per-execution", "200ms")
			if !strings.Contains(out, "max_bytes              3145728   3145728") || !strings.Contains(out, "max_execs_per_minute   3") || !strings.Contains(out, "max_cpu_per_day        24h0m0s   (server's)") ||
				!strings.Contains(out, "max_cpu_per_execution  200ms     200ms") {
				t.Errorf("desk ws limits:\n%s", out)
			}
			// The CPU limit per execution stops a busy loop of the shell
			// (its bound of 1,000,000 loop iterations takes seconds of CPU)
			// with exit code 152, on another workspace (demo's executions
			// per minute are counted below).
			// The shell's and js's CPU counts against the day's CPU: after
			// two stopped loops (200ms or more each) a day of 300ms is used.
			mustDesk(t, nil, "ws", "limits", "other", "--max-cpu-per-execution", "200ms", "--max-cpu-per-day", "300ms")
			if _, errs, code := desk(t, nil, "exec", "other", "--", "while :; do :; done"); code != 152 || !strings.Contains(errs, "CPU limit of 200ms") {
				t.Errorf("a busy loop under the workspace's CPU limit: exit %d %q, want 152 naming the limit", code, errs)
			}
			if _, errs, code := desk(t, nil, "exec", "other", "--backend", "js", "--", "for (;;) {}"); code != 152 || !strings.Contains(errs, "CPU limit of 200ms") {
				t.Errorf("a js busy loop under the workspace's CPU limit: exit %d %q, want 152 naming the limit", code, errs)
			}
			if _, errs, code := desk(t, nil, "exec", "other", "--", "true"); code == 0 || !strings.Contains(errs, "of CPU today") {
				t.Errorf("an execution after the day's CPU was used: exit %d %q, want refused", code, errs)
			}
			if err := put("demo", "/workspace/b.bin"); !edquot(err) {
				t.Fatalf("PUT over the workspace's own quota: %v, want 403 EDQUOT", err)
			}
			if _, err := c.Stat(ctx, "demo", "/workspace/b.bin"); err == nil {
				t.Error("the refused PUT left a file")
			}
			if err := put("other", "/workspace/b.bin"); err != nil {
				t.Errorf("another workspace is bound by the server's quota only: %v", err)
			}
			// Executions per minute: the fourth this minute is refused
			// (the minute may turn between them: then fewer are refused,
			// never the first three).
			var refused string
			for i := range 4 {
				_, errs, code := desk(t, nil, "exec", "demo", "--", "for i in $(seq 60); do : > /workspace/n$i || exit 7; done")
				switch {
				case i < 3 && code != 7:
					t.Fatalf("exec %d under the inode bound of 50: exit %d %q, want 7 (a create refused)", i, code, errs)
				case i < 3 && !strings.Contains(errs, "Disk quota exceeded"):
					t.Errorf("exec %d: %q", i, errs)
				case i == 3 && code != 0 && code != 7:
					refused = errs
				}
			}
			t.Logf("the fourth execution: %q", refused)
			if refused != "" && !strings.Contains(refused, "desk ws limits") {
				t.Errorf("the refused execution: %q", refused)
			}
			mustDesk(t, nil, "fs", "-w", "demo", "check")

			// A workspace token reads them; only the admin sets them.
			tok, err := c.MintToken(ctx, client.TokenRequest{Workspace: "demo", Scopes: []string{"read", "write"}})
			if err != nil {
				t.Fatal(err)
			}
			tc, err := client.New(u, tok.Secret, client.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if li, err := tc.GetLimits(ctx, "demo"); err != nil || li.Limits.MaxBytes != 3145728 || li.Effective.MaxInodes != 50 {
				t.Errorf("GET limits with a workspace token: %+v %v", li, err)
			}
			if _, err := tc.SetLimits(ctx, "demo", client.Limits{MaxBytes: 1 << 40}); client.ErrorCode(err) != "forbidden" {
				t.Errorf("SET limits with a workspace token: %v, want forbidden", err)
			}
			if _, errs, code := desk(t, nil, "ws", "limits", "demo", "--max-cpu-per-day", "soon"); code == 0 || !strings.Contains(errs, "max_cpu_per_day") {
				t.Errorf("a malformed duration: %d %q", code, errs)
			}

			// Persisted: a new server opens the store with them.
			stop()
			startServe(t, args...)
			if c, err = client.FromEnvironment(client.Options{}); err != nil {
				t.Fatal(err)
			}
			mustDesk(t, nil, "exec", "demo", "--", "rm -f /workspace/n*")
			if err := put("demo", "/workspace/b.bin"); !edquot(err) {
				t.Fatalf("PUT over the quota after a restart: %v, want 403 EDQUOT", err)
			}
			var li client.LimitsInfo
			if err := json.Unmarshal([]byte(mustDesk(t, nil, "ws", "limits", "demo", "--reset", "--json")), &li); err != nil || li.Limits != (client.Limits{}) || li.Effective.MaxBytes != 67108864 || li.Effective.MaxExecsPerMinute != 600 {
				t.Fatalf("--reset: %+v %v", li, err)
			}
			if err := put("demo", "/workspace/b.bin"); err != nil {
				t.Errorf("PUT under the server's quota again: %v", err)
			}
			mustDesk(t, nil, "fs", "-w", "demo", "check")
		})
	}
}
