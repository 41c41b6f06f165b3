package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
	"github.com/desk-dev/desk/internal/workspace"
)

// TestFullDisk fills a real 8 MiB filesystem holding the data directory
// through the API: writes get 507 ENOSPC with a message saying the disk is
// full, the tools say so too, a delete works, writes work again, stats show
// the disk's figures, and the store is intact.
func TestFullDisk(t *testing.T) {
	dir := vfstest.SmallDisk(t, 8<<20)
	e := newEnv(t, envOpts{dir: dir, vfs: vfs.Options{CheckpointBytes: 1 << 20}, host: host.Options{ReserveBytes: 1 << 20}})
	e.mkws("w")
	body := func(i int) []byte { // text that deduplicates with nothing
		var buf bytes.Buffer
		for j := 0; buf.Len() < 256<<10; j++ {
			fmt.Fprintf(&buf, "%d %d %x\n", i, j, uint32(i*7919+j)*2654435761)
		}
		return buf.Bytes()[:256<<10]
	}
	var st int
	var b []byte
	var code string
	n := 0
	for ; n < 100; n++ {
		if st, b, code = e.raw("PUT", fmt.Sprintf("/v1/workspaces/w/files/f%02d", n), e.admin, bytes.NewReader(body(n))); st != http.StatusCreated {
			break
		}
	}
	if st != http.StatusInsufficientStorage || code != "ENOSPC" || !strings.Contains(string(b), "no space left on device (the disk holding the store is full") {
		t.Fatalf("PUT on a full disk: %d %s %s", st, code, b)
	}
	if n < 12 {
		t.Fatalf("only %d files of 256 KiB written on an 8 MiB disk", n)
	}
	// The write tool says it.
	in, _ := json.Marshal(map[string]string{"path": "/tool", "content": string(body(500))})
	st, b, _ = e.raw("POST", "/v1/workspaces/w/tools/write", e.admin, bytes.NewReader(in))
	if st != http.StatusOK || !strings.Contains(string(b), `"is_error":true`) || !strings.Contains(string(b), "the disk holding the store is full") || !strings.Contains(string(b), "delete or truncate files to make room") {
		t.Fatalf("write tool on a full disk: %d %s", st, b)
	}
	var ws client.WorkspaceStats
	st, b, _ = e.raw("GET", "/v1/workspaces/w/stats", e.admin, nil)
	if err := json.Unmarshal(b, &ws); st != 200 || err != nil {
		t.Fatalf("stats: %d %s %v", st, b, err)
	}
	free, total := vfstest.DiskFree(t, dir)
	sp := ws.Space
	if sp.LimitedBy != vfs.LimitDisk || sp.DiskBytes != total || sp.DiskFree-free > 1<<20 || free-sp.DiskFree > 1<<20 ||
		sp.Size != sp.Used+sp.Free || sp.Free > 1<<20 || !sp.ReserveHeld || sp.ReserveBytes != 1<<20 {
		t.Fatalf("stats on a full disk: %+v; statfs(2): %d of %d free", sp, free, total)
	}
	for _, f := range []string{"f00", "f01", "f02"} {
		if st, b, _ := e.raw("DELETE", "/v1/workspaces/w/files/"+f, e.admin, nil); st != http.StatusNoContent {
			t.Fatalf("DELETE on a full disk: %d %s", st, b)
		}
	}
	if st, b, _ := e.raw("PUT", "/v1/workspaces/w/files/again", e.admin, bytes.NewReader(body(1000))); st != http.StatusCreated {
		t.Fatalf("PUT after deletes: %d %s", st, b)
	}
	for i := 3; i < n; i++ {
		if st, b, _ := e.raw("GET", fmt.Sprintf("/v1/workspaces/w/files/f%02d", i), e.admin, nil); st != 200 || !bytes.Equal(b, body(i)) {
			t.Fatalf("f%02d after a full disk: %d, %d bytes", i, st, len(b))
		}
	}
	if err := e.h.Do(bg, "w", func(ws *workspace.Workspace) error {
		r, err := ws.FS().Check(bg)
		if err == nil && !r.OK() {
			err = fmt.Errorf("%v", r.Problems)
		}
		return err
	}); err != nil {
		t.Fatalf("check: %v", err)
	}
}
