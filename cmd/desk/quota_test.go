package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
)

// TestQuota_Serve: a workspace's byte and inode quotas (desk serve
// --workspace-max-bytes, --workspace-max-inodes) stop the writes of every
// surface cleanly with EDQUOT ("Disk quota exceeded") at the write that
// crosses them: the API (403 EDQUOT, a PUT leaves nothing), the write tool
// (nothing written), the shell (a redirection's write fails: bash's message,
// status 1), js (fs/promises rejects with code EDQUOT) and the sandbox's
// programs through the FUSE mount; the store passes its check; deleting
// makes room again.
func TestQuota_Serve(t *testing.T) {
	serveSandboxDemo(t, "--log-level", "warn", "--workspace-max-bytes", "1048576", "--workspace-max-inodes", "200")
	big := make([]byte, 2<<20)
	rand.Read(big)
	ctx := context.Background()
	c, err := client.FromEnvironment(client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool {
		_, err := c.Stat(ctx, "demo", p)
		return err == nil
	}

	// The API: a PUT over the quota is refused whole, 403 EDQUOT.
	if _, errs, code := desk(t, big, "fs", "-w", "demo", "put", "/workspace/api.bin"); code == 0 || !strings.Contains(errs, "EDQUOT") || !strings.Contains(errs, "quota") {
		t.Fatalf("put: %d %q", code, errs)
	}
	_, err = c.WriteFile(ctx, "demo", "/workspace/api.bin", bytes.NewReader(big), client.WriteOptions{})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusForbidden || ce.Code != "EDQUOT" {
		t.Fatalf("PUT over the quota: %v, want 403 EDQUOT", err)
	}
	if exists("/workspace/api.bin") {
		t.Error("the refused PUT left a file")
	}
	// The write tool.
	in, _ := json.Marshal(map[string]any{"path": "tool.txt", "content": hex.EncodeToString(big[:768<<10])}) // 1.5 MiB of text
	res, err := c.CallTool(ctx, "demo", "write", in, nil)
	if err == nil && !res.IsError {
		t.Fatal("the write tool wrote over the quota")
	}
	if exists("/workspace/tool.txt") {
		t.Error("the refused tool write left a file")
	}
	mustDesk(t, big[:600<<10], "fs", "-w", "demo", "put", "/workspace/r.bin") // unique bytes for the shell to turn into text
	// The shell: a redirection's write over the quota fails where it is
	// written, with bash's message and status 1.
	for _, script := range []string{
		`base64 /workspace/r.bin > /workspace/sh.txt; echo rc=$?`,
		`x=$(base64 -w0 /workspace/r.bin); echo "$x" > /workspace/sh.txt; echo rc=$?`,
	} {
		if out, errs, code := desk(t, nil, "exec", "demo", "--", script); code != 0 || out != "rc=1\n" || !strings.Contains(errs, "write error: Disk quota exceeded") {
			t.Errorf("shell %q over the byte quota: exit %d, %q, %q", script, code, out, errs)
		}
		mustDesk(t, nil, "exec", "demo", "--", "rm -f /workspace/sh.txt")
	}
	// js: fs/promises rejects with code EDQUOT.
	if out, errs, code := desk(t, nil, "exec", "demo", "--backend", "js", "--", "import fs from 'node:fs/promises'; import crypto from 'node:crypto'; try { await fs.writeFile('/workspace/js.bin', crypto.randomBytes(2 << 20)); console.log('written') } catch (e) { console.log(e.code, e.message) }"); code != 0 || !strings.HasPrefix(out, "EDQUOT EDQUOT: disk quota exceeded") {
		t.Errorf("js over the byte quota: exit %d, %q, %q", code, out, errs)
	}
	mustDesk(t, nil, "exec", "demo", "--", "rm -f /workspace/js.bin")
	// The sandbox: the real programs on the FUSE mount get EDQUOT at write(2).
	if out, errs, code := desk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "head -c 3000000 /dev/urandom > /workspace/sb.bin; echo rc=$?"); code != 0 || out != "rc=1\n" || !strings.Contains(errs, "Disk quota exceeded") {
		t.Errorf("sandbox over the byte quota: exit %d, %q, %q", code, out, errs)
	}
	mustDesk(t, nil, "exec", "demo", "--", "rm -f /workspace/*.bin")
	// Inodes.
	if _, errs, code := desk(t, nil, "exec", "demo", "--", "for i in $(seq 300); do : > /workspace/n$i || exit 7; done"); code != 7 || !strings.Contains(errs, "Disk quota exceeded") {
		t.Errorf("over the inode quota: exit %d, %q", code, errs)
	}
	if out, errs, code := desk(t, nil, "fs", "-w", "demo", "check"); code != 0 {
		t.Fatalf("check after the quotas: %d %s %s", code, out, errs)
	}
	// Room again once files go.
	mustDesk(t, nil, "exec", "demo", "--", "rm -f /workspace/n*")
	mustDesk(t, bytes.Repeat([]byte("y"), 1000), "fs", "-w", "demo", "put", "/workspace/small.txt")
}
