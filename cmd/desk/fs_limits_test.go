package main

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/policy"
)

// TestFS_OfflineLimits: desk fs -db on a data directory's workspace
// database honours the workspace's own quotas (DATA/policy/WS/limits.json,
// as desk ws limits keeps them): a put past the byte quota and a create past
// the inode bound fail with EDQUOT and leave nothing; the store passes its
// check; a database outside a data directory has the store's defaults.
func TestFS_OfflineLimits(t *testing.T) {
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "workspaces"), 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(data, "workspaces", "demo.db")
	mustDesk(t, nil, "fs", "-db", db, "mkdir", "/workspace/d")
	if err := policy.OpenStore(data).SetLimits("demo", policy.Limits{MaxBytes: 1 << 20, MaxInodes: 8}); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 2<<20)
	rand.Read(big)
	if _, errs, code := desk(t, big, "fs", "-db", db, "put", "/workspace/big.bin"); code == 0 || !strings.Contains(errs, "quota") {
		t.Fatalf("put past the workspace's byte quota: exit %d %q", code, errs)
	}
	if _, errs, code := desk(t, nil, "fs", "-db", db, "stat", "/workspace/big.bin"); code == 0 {
		t.Fatalf("the refused put left a file: %q", errs)
	}
	var refused string
	for i := range 10 {
		if _, errs, code := desk(t, nil, "fs", "-db", db, "mkdir", "/workspace/d/n"+string(rune('a'+i))); code != 0 {
			refused = errs
			break
		}
	}
	if !strings.Contains(refused, "quota") {
		t.Fatalf("creates past the inode bound of 8: %q", refused)
	}
	mustDesk(t, nil, "fs", "-db", db, "check")

	// Outside a data directory: the store's defaults.
	other := filepath.Join(t.TempDir(), "demo.db")
	mustDesk(t, big, "fs", "-db", other, "put", "/workspace/big.bin")
}
