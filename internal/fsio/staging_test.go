package fsio_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/desk-dev/desk/internal/fsio"
)

// TestCleanStaging checks that CleanStaging removes every staging directory
// at the root (more than one page of them, with their trees) and nothing
// else: not a file or a directory whose name only looks like one.
func TestCleanStaging(t *testing.T) {
	ctx := context.Background()
	fsys := openWS(t)
	const n = 300 // more than one page
	for i := range n {
		d := fmt.Sprintf("/%s%016x", fsio.StagingPrefix, i)
		if err := fsys.MkdirAll(ctx, d+"/sub", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := fsys.WriteFile(ctx, d+"/sub/f", []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep := []string{"/.desk-import-notastaging", "/.desk-import-", "/a", "/zz"}
	for _, k := range keep {
		if err := fsys.Mkdir(ctx, k, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := fsys.WriteFile(ctx, fmt.Sprintf("/%s%016x", fsio.StagingPrefix, 1<<40), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	removed, err := fsio.CleanStaging(ctx, fsys)
	if err != nil || removed != n {
		t.Fatalf("CleanStaging = %d, %v; want %d", removed, err, n)
	}
	ents, err := fsys.ReadDir(ctx, "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(keep)+1 {
		t.Errorf("root after cleaning: %v, want %v and the file", ents, keep)
	}
}
